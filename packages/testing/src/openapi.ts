import SwaggerParser from '@apidevtools/swagger-parser';

/** The problems swagger-parser finds in a document (OpenAPI 3.1 schema and semantics); '' when none. */
export async function openApiProblems(document: unknown): Promise<string> {
  try {
    await SwaggerParser.validate(JSON.parse(JSON.stringify(document)));
    return '';
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}
