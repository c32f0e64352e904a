/**
 * The OpenAPI 3.1 document of the variant /v1 agent contract: its rows by tag, under the primary's
 * tags (agent-openapi.ts), through the same builder (openapi.ts). Its schemas stay together in
 * variant-schemas.ts: they are one translation of the primary's (docs/variant.md maps each field), and
 * each tag here picks the ones its rows name.
 */
import { AGENT_CONTRACT, type AgentTagName } from './agent-openapi';
import { AGENT_INTENTS } from './agent/intents';
import { AGENT_ONBOARDING } from './agent/onboarding';
import { AGENT_STATE } from './agent/state';
import { AGENT_WEBHOOKS } from './agent/webhooks';
import {
  buildOpenApiDocument,
  contractTag,
  operationsOf,
  type ContractDescription,
  type Operation,
} from './openapi';
import {
  VARIANT_SCHEMAS,
  VariantIdempotencyKey,
  variantCode,
  type VariantSchemaName,
} from './variant-schemas';

/** The variant's schemas of one tag (variant-schemas.ts holds them all, as docs/variant.md maps them). */
const pick = <const Names extends VariantSchemaName>(...names: Names[]) =>
  Object.fromEntries(names.map((n) => [n, VARIANT_SCHEMAS[n]])) as Pick<typeof VARIANT_SCHEMAS, Names>;

export const VARIANT_ONBOARDING = contractTag({
  name: 'onboarding',
  description: AGENT_ONBOARDING.description,
  schemas: pick('VariantRegisterRequest', 'VariantRegisterResponse'),
  operations: {
    registerAgent: {
      method: 'post',
      path: '/agents/register',
      tag: 'onboarding',
      operationId: 'registerAgent',
      summary: 'Exchange a one-time invitation code for an API key (shown once), the group and the limits.',
      request: 'VariantRegisterRequest',
      response: 'VariantRegisterResponse',
      public: true,
    },
  },
});

export const VARIANT_INTENTS = contractTag({
  name: 'intents',
  description: AGENT_INTENTS.description,
  schemas: pick(
    'VariantTransferRequest',
    'VariantTransferResponse',
    'VariantSwapRequest',
    'VariantSwapResponse',
    'VariantDepositRequest',
    'VariantDepositResponse',
    'VariantWithdrawRequest',
    'VariantWithdrawResponse',
    'VariantSimulateRequest',
    'VariantSimulateResponse',
  ),
  operations: {
    transfer: {
      method: 'post',
      path: '/transfer',
      tag: 'intents',
      operationId: 'transfer',
      summary: 'Send the default stablecoin to an allow-listed recipient; a 0.10 % fee is deducted.',
      request: 'VariantTransferRequest',
      response: 'VariantTransferResponse',
      idempotent: true,
    },
    swap: {
      method: 'post',
      path: '/swap',
      tag: 'intents',
      operationId: 'swap',
      summary: 'Swap through the configured aggregator under the spend limits, with a minimum output.',
      request: 'VariantSwapRequest',
      response: 'VariantSwapResponse',
      idempotent: true,
    },
    deposit: {
      method: 'post',
      path: '/deposit',
      tag: 'intents',
      operationId: 'deposit',
      summary: 'Deposit into an allow-listed lending venue.',
      request: 'VariantDepositRequest',
      response: 'VariantDepositResponse',
      idempotent: true,
    },
    withdraw: {
      method: 'post',
      path: '/withdraw',
      tag: 'intents',
      operationId: 'withdraw',
      summary: 'Withdraw from an allow-listed lending venue.',
      request: 'VariantWithdrawRequest',
      response: 'VariantWithdrawResponse',
      idempotent: true,
    },
    simulateIntent: {
      method: 'post',
      path: '/intents/simulate',
      tag: 'intents',
      operationId: 'simulateIntent',
      summary: 'Dry-run a transfer or a swap: every check, and the fee; nothing is submitted.',
      request: 'VariantSimulateRequest',
      response: 'VariantSimulateResponse',
    },
  },
});

export const VARIANT_STATE = contractTag({
  name: 'state',
  description: AGENT_STATE.description,
  schemas: pick(
    'VariantBalanceQuery',
    'VariantBalanceResponse',
    'VariantLimitsResponse',
    'VariantHistoryQuery',
    'VariantHistoryResponse',
  ),
  operations: {
    getBalance: {
      method: 'get',
      path: '/balance',
      tag: 'state',
      operationId: 'getBalance',
      summary: 'The balance of one token (the default stablecoin unless ?mint=) and its token account.',
      query: 'VariantBalanceQuery',
      response: 'VariantBalanceResponse',
    },
    getLimits: {
      method: 'get',
      path: '/limits',
      tag: 'state',
      operationId: 'getLimits',
      summary: 'The limits, what the windows hold and what remains.',
      response: 'VariantLimitsResponse',
    },
    getHistory: {
      method: 'get',
      path: '/history',
      tag: 'state',
      operationId: 'getHistory',
      summary: 'Confirmed operations, newest first, paged by an opaque cursor.',
      query: 'VariantHistoryQuery',
      response: 'VariantHistoryResponse',
    },
  },
});

export const VARIANT_WEBHOOKS = contractTag({
  name: 'webhooks',
  description: AGENT_WEBHOOKS.description,
  schemas: pick('VariantWebhookRequest', 'VariantWebhookResponse'),
  operations: {
    registerWebhook: {
      method: 'post',
      path: '/webhooks',
      tag: 'webhooks',
      operationId: 'registerWebhook',
      summary: 'Subscribe an HTTPS URL to agent-scoped events, signed with a secret the caller chose.',
      request: 'VariantWebhookRequest',
      response: 'VariantWebhookResponse',
    },
  },
});

/** The variant document's tags with rows, in its order (its tag list is the primary's). */
export const VARIANT_TAGS = [VARIANT_ONBOARDING, VARIANT_INTENTS, VARIANT_STATE, VARIANT_WEBHOOKS] as const;

export const VARIANT_OPERATIONS: readonly Operation<VariantSchemaName, AgentTagName>[] =
  operationsOf(VARIANT_TAGS);

/** The variant contract: its operations, schemas, error envelope and code names. */
export const VARIANT_CONTRACT: ContractDescription<VariantSchemaName, AgentTagName> = {
  title: 'Token operations: agent API (variant)',
  serverUrl: '/v1',
  operations: VARIANT_OPERATIONS,
  schemas: VARIANT_SCHEMAS,
  tags: AGENT_CONTRACT.tags,
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
