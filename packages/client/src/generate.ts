/**
 * The client's types, generated from the agent contract's OpenAPI document (the one the service serves
 * at /api/v1/openapi.json) by openapi-typescript. `npm run client:generate` writes them to
 * src/generated/agent-api.ts; a unit test regenerates them in memory and fails when that file drifts.
 */
import openapiTS, { COMMENT_HEADER, astToString, type OpenAPI3 } from 'openapi-typescript';
// The contract module alone (not the package's index, which loads every adapter of the service).
import { openApiDocument } from '@tokenops/shared';
import { join } from 'node:path';

export const GENERATED_FILE = join(__dirname, 'generated', 'agent-api.ts');

const HEADER = `${COMMENT_HEADER.trimEnd()}
/* From openApiDocument() of @tokenops/shared (served at /api/v1/openapi.json): npm run client:generate. */

`;

/** The text of src/generated/agent-api.ts for the current contract. */
export async function generatedTypes(): Promise<string> {
  // A plain JSON copy: the document as it is served. A field with a default stays optional in a request.
  const document = JSON.parse(JSON.stringify(openApiDocument())) as OpenAPI3;
  const ast = await openapiTS(document, { silent: true, defaultNonNullable: false });
  return HEADER + astToString(ast);
}
