/**
 * The primary /api/v1 agent contract's document (spec/agent-api.md), composed of its tags in order,
 * one file each under agent/: onboarding, intents, state, webhooks, reference. Each tag holds its rows
 * with the schemas they name; this file says what the document is and in which order the tags come.
 */
import {
  AGENT_LIMIT,
  buildOpenApiDocument,
  operationsOf,
  schemasOf,
  tagsOf,
  type ContractDescription,
  type Operation,
  type TagNameOf,
} from './openapi';
import { ErrorBody, IdempotencyKey } from './schemas';
import { AGENT_INTENTS } from './agent/intents';
import { AGENT_ONBOARDING } from './agent/onboarding';
import { AGENT_REFERENCE } from './agent/reference';
import { AGENT_STATE } from './agent/state';
import { AGENT_WEBHOOKS } from './agent/webhooks';
import { PathParams } from './operator-openapi';

export * from './agent/onboarding';
export * from './agent/intents';
export * from './agent/state';
export * from './agent/webhooks';
export * from './agent/reference';

/** The agent document's tags, in its order. */
export const AGENT_TAGS = [
  AGENT_ONBOARDING,
  AGENT_INTENTS,
  AGENT_STATE,
  AGENT_WEBHOOKS,
  AGENT_REFERENCE,
] as const;
export type AgentTagName = TagNameOf<typeof AGENT_TAGS>;

/** Every named schema of the agent document; the key is the schema's name in it. */
export const CONTRACT_SCHEMAS = { ...schemasOf(AGENT_TAGS), ErrorBody, PathParams } as const;
/** The name of a schema of the agent contract (the OpenAPI document's components). */
export type ContractSchemaName = keyof typeof CONTRACT_SCHEMAS;

type AgentOperation = Operation<ContractSchemaName, AgentTagName>;

/**
 * The service's own operations for agents, beyond the contract's: an agent lists and deletes its
 * webhooks, and reads what a spend needs (the tokens, the lending venues, the aggregator's pools).
 * Public reads answer without a key.
 */
export const AGENT_SERVICE_OPERATIONS: readonly AgentOperation[] = [
  AGENT_WEBHOOKS.operations.listWebhooks,
  AGENT_WEBHOOKS.operations.deleteWebhook,
  ...Object.values(AGENT_REFERENCE.operations),
];

/** The contract's operations (spec/agent-api.md, and x402's pay): every row but the service's own. */
export const OPERATIONS: readonly AgentOperation[] = operationsOf(AGENT_TAGS).filter(
  (op) => !AGENT_SERVICE_OPERATIONS.includes(op),
);

/** The primary /api/v1 contract: its operations (the service's own for agents too), schemas and errors. */
export const AGENT_CONTRACT: ContractDescription<ContractSchemaName, AgentTagName> = {
  title: 'Token operations: agent API',
  serverUrl: '/api/v1',
  operations: operationsOf(AGENT_TAGS),
  schemas: CONTRACT_SCHEMAS,
  tags: tagsOf(AGENT_TAGS),
  pathParameters: 'PathParams',
  rateLimit: AGENT_LIMIT,
  errorBody: 'ErrorBody',
  codeName: (code) => code,
  idempotencyHeader: {
    required: false,
    schema: IdempotencyKey,
    description: 'Optional; when sent it must equal the body field idempotency_key.',
  },
};

/** The primary /api/v1 contract's document. */
export function openApiDocument(serverUrl = AGENT_CONTRACT.serverUrl) {
  return buildOpenApiDocument<ContractSchemaName, AgentTagName>({ ...AGENT_CONTRACT, serverUrl });
}
