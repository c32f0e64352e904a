/**
 * The OpenAPI 3.1 document of the variant /v1 agent contract: its operations and schemas
 * (variant-schemas.ts), under the primary's tags (agent-openapi.ts), through the same builder
 * (openapi.ts).
 */
import { AGENT_TAGS, type AgentTagName } from './agent-openapi';
import { buildOpenApiDocument, tagsOf, type ContractDescription, type Operation } from './openapi';
import {
  VARIANT_SCHEMAS,
  VariantIdempotencyKey,
  variantCode,
  type VariantSchemaName,
} from './variant-schemas';

export const VARIANT_OPERATIONS: readonly Operation<VariantSchemaName, AgentTagName>[] = [
  {
    method: 'post',
    path: '/agents/register',
    tag: 'onboarding',
    operationId: 'registerAgent',
    summary: 'Exchange a one-time invitation code for an API key (shown once), the group and the limits.',
    request: 'VariantRegisterRequest',
    response: 'VariantRegisterResponse',
    public: true,
  },
  {
    method: 'post',
    path: '/transfer',
    tag: 'intents',
    operationId: 'transfer',
    summary: 'Send the default stablecoin to an allow-listed recipient; a 0.10 % fee is deducted.',
    request: 'VariantTransferRequest',
    response: 'VariantTransferResponse',
    idempotent: true,
  },
  {
    method: 'post',
    path: '/swap',
    tag: 'intents',
    operationId: 'swap',
    summary: 'Swap through the configured aggregator under the spend limits, with a minimum output.',
    request: 'VariantSwapRequest',
    response: 'VariantSwapResponse',
    idempotent: true,
  },
  {
    method: 'post',
    path: '/deposit',
    tag: 'intents',
    operationId: 'deposit',
    summary: 'Deposit into an allow-listed lending venue.',
    request: 'VariantDepositRequest',
    response: 'VariantDepositResponse',
    idempotent: true,
  },
  {
    method: 'post',
    path: '/withdraw',
    tag: 'intents',
    operationId: 'withdraw',
    summary: 'Withdraw from an allow-listed lending venue.',
    request: 'VariantWithdrawRequest',
    response: 'VariantWithdrawResponse',
    idempotent: true,
  },
  {
    method: 'post',
    path: '/intents/simulate',
    tag: 'intents',
    operationId: 'simulateIntent',
    summary: 'Dry-run a transfer or a swap: every check, and the fee; nothing is submitted.',
    request: 'VariantSimulateRequest',
    response: 'VariantSimulateResponse',
  },
  {
    method: 'get',
    path: '/balance',
    tag: 'state',
    operationId: 'getBalance',
    summary: 'The balance of one token (the default stablecoin unless ?mint=) and its token account.',
    query: 'VariantBalanceQuery',
    response: 'VariantBalanceResponse',
  },
  {
    method: 'get',
    path: '/limits',
    tag: 'state',
    operationId: 'getLimits',
    summary: 'The limits, what the windows hold and what remains.',
    response: 'VariantLimitsResponse',
  },
  {
    method: 'get',
    path: '/history',
    tag: 'state',
    operationId: 'getHistory',
    summary: 'Confirmed operations, newest first, paged by an opaque cursor.',
    query: 'VariantHistoryQuery',
    response: 'VariantHistoryResponse',
  },
  {
    method: 'post',
    path: '/webhooks',
    tag: 'webhooks',
    operationId: 'registerWebhook',
    summary: 'Subscribe an HTTPS URL to agent-scoped events, signed with a secret the caller chose.',
    request: 'VariantWebhookRequest',
    response: 'VariantWebhookResponse',
  },
];

/** The variant contract: its operations, schemas, error envelope and code names. */
export const VARIANT_CONTRACT: ContractDescription<VariantSchemaName, AgentTagName> = {
  title: 'Token operations: agent API (variant)',
  serverUrl: '/v1',
  operations: VARIANT_OPERATIONS,
  schemas: VARIANT_SCHEMAS,
  tags: tagsOf(AGENT_TAGS),
  errorBody: 'VariantErrorBody',
  codeName: variantCode,
  rateLimited: true,
  idempotencyHeader: {
    required: true,
    schema: VariantIdempotencyKey,
    description: 'Required; any UUID. A replay within 24 hours answers the original response.',
  },
};

export function variantOpenApiDocument(serverUrl = VARIANT_CONTRACT.serverUrl) {
  return buildOpenApiDocument<VariantSchemaName, AgentTagName>({ ...VARIANT_CONTRACT, serverUrl });
}
