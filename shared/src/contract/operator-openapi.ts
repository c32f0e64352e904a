/**
 * The OpenAPI 3.1 document of the operator surface (served at /api/v1/orchestrator/openapi.json),
 * composed of its tags in order, one file each under operator/: each tag holds its rows with the
 * schemas they name and the path parameters it introduces (operator/common.ts: what they share). This
 * file says what the document is, which tags it has and in which order (a tag is imported, exported
 * and listed here), and its security schemes.
 */
import {
  OPERATOR_LIMIT,
  buildOpenApiDocument,
  operationsOf,
  pathParametersOf,
  schemasOf,
  tagsOf,
  type ContractDescription,
  type Operation,
  type TagNameOf,
} from './openapi';
import { ErrorBody } from './schemas';
import { AGENT_WEBHOOKS } from './agent/webhooks';
import { OPERATOR_ACTIVITY } from './operator/activity';
import { OPERATOR_AGENTS } from './operator/agents';
import { OPERATOR_ALLOW_LIST } from './operator/allow-list';
import { OPERATOR_APPROVALS } from './operator/approvals';
import { OPERATOR_AUDIT } from './operator/audit';
import { OPERATOR_AUDITORS } from './operator/auditors';
import { OPERATOR_GOVERNANCE } from './operator/governance';
import { OPERATOR_GROUPS } from './operator/groups';
import { OPERATOR_GUARD } from './operator/guard';
import { OPERATOR_MEMBERS } from './operator/members';
import { OPERATOR_REFERENCE } from './operator/reference';
import { OPERATOR_SIGN_IN } from './operator/sign-in';
import { OPERATOR_WEBHOOKS } from './operator/webhooks';

export * from './operator/sign-in';
export * from './operator/governance';
export * from './operator/members';
export * from './operator/groups';
export * from './operator/allow-list';
export * from './operator/agents';
export * from './operator/activity';
export * from './operator/approvals';
export * from './operator/guard';
export * from './operator/webhooks';
export * from './operator/auditors';
export * from './operator/audit';
export * from './operator/reference';

/** The operator document's tags, in its order. */
export const OPERATOR_TAGS = [
  OPERATOR_SIGN_IN,
  OPERATOR_GROUPS,
  OPERATOR_ALLOW_LIST,
  OPERATOR_AGENTS,
  OPERATOR_MEMBERS,
  OPERATOR_GOVERNANCE,
  OPERATOR_ACTIVITY,
  OPERATOR_APPROVALS,
  OPERATOR_GUARD,
  OPERATOR_WEBHOOKS,
  OPERATOR_AUDITORS,
  OPERATOR_AUDIT,
  OPERATOR_REFERENCE,
] as const;
export type OperatorTagName = TagNameOf<typeof OPERATOR_TAGS>;

/** Every path parameter of the service (the agent's and the operator's paths): each tag's, together. */
export const PathParams = pathParametersOf([...OPERATOR_TAGS, AGENT_WEBHOOKS]);

/** Every named schema of the operator document. */
export const OPERATOR_SCHEMAS = { ...schemasOf(OPERATOR_TAGS), ErrorBody, PathParams } as const;
type OperatorSchemaName = keyof typeof OPERATOR_SCHEMAS;
export type OperatorOperation = Operation<OperatorSchemaName, OperatorTagName>;

/** Where the operator surface is served. */
export const OPERATOR_SERVER_URL = '/api/v1';

export const OPERATOR_OPERATIONS: readonly OperatorOperation[] = operationsOf(OPERATOR_TAGS);

/** The operator surface: its operations, schemas, tags and security schemes. */
export const OPERATOR_CONTRACT: ContractDescription<OperatorSchemaName, OperatorTagName> = {
  title: 'Token operations: operator API',
  description:
    'What an operator does: sign in with a wallet, run groups (limits, allow-list, invitations), act on agents (limits, revoke, rotate, emergency withdrawal), freeze an agent or a group at once and lift a freeze by a proposal its admins sign, subscribe to the fleet’s events, grant auditors, read the audit log and reconcile it with the chain.',
  serverUrl: OPERATOR_SERVER_URL,
  operations: OPERATOR_OPERATIONS,
  schemas: OPERATOR_SCHEMAS,
  errorBody: 'ErrorBody',
  codeName: (code) => code,
  pathParameters: 'PathParams',
  tags: tagsOf(OPERATOR_TAGS),
  rateLimit: OPERATOR_LIMIT,
  securitySchemes: {
    operatorToken: {
      type: 'http',
      scheme: 'bearer',
      bearerFormat: 'JWT',
      description:
        'The JWT from POST /orchestrator/auth/token for the wallet that owns the group. Following RFC8725: HS256 only (verified with that one algorithm), an audience and a one-hour expiry, both checked.',
    },
    auditorToken: {
      type: 'http',
      scheme: 'bearer',
      bearerFormat: 'JWT',
      description:
        'The JWT an auditor’s wallet gets from the same sign-in (issued and checked as operatorToken says, following RFC8725); it reads the audit routes of the groups it was granted, nothing else.',
    },
  },
};

/** The operator surface's OpenAPI 3.1 document. */
export function operatorOpenApiDocument(serverUrl = OPERATOR_SERVER_URL) {
  return buildOpenApiDocument<OperatorSchemaName, OperatorTagName>({ ...OPERATOR_CONTRACT, serverUrl });
}
