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
  AGENT_LIMIT,
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

/** What every variant spend's description says of the one pipeline, shared with /api/v1. */
const VARIANT_SPEND_RULES =
  'The same spend as under /api/v1, counted once across both prefixes: the allow-list entry (its TTL and budget), the per-transaction limit, the daily limit (the last 24 hours) and the hourly cap are checked in one decision, and a refusal is 403 with its code (`whitelist_violation`, `whitelist_expired`, `whitelist_amount_exhausted`, `per_tx_limit_exceeded`, `daily_limit_exceeded`, `hourly_freq_exceeded`); a spend above the approval threshold is `409 approval_required` until an approver decides. Answered once confirmed on chain. The `Idempotency-Key` header (a UUID) is required: a replay within 24 hours answers the original response with no second operation; the same key with another request is `409 idempotency_key_reused`.';

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
      description:
        'Redeems a one-time invitation code, as POST /api/v1/register does, and answers the API key once with the agent’s group and the limits it starts with. The key works under both prefixes. A code that is unknown, expired or already redeemed is `400 invalid_invitation_code`; wrong codes are counted per client address (`429 rate_limited` with Retry-After past its allowance). No key is needed.',
      request: 'VariantRegisterRequest',
      response: 'VariantRegisterResponse',
      public: true,
      signIn: true,
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
      description:
        'Sends `amount` of the default stablecoin (the group’s base token) to `recipient`, less the 0.10 % protocol fee (`fee`); `amount_sent` is what the recipient receives and `recipient_remaining` what remains of its allow-list budget (null without one). A `memo` (at most 200 bytes of UTF-8) is kept in the log and its SHA-256 is put on chain. ' +
        VARIANT_SPEND_RULES,
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
      description:
        'Sells `input_amount` of `input_mint` for `output_mint` through the aggregator, never below `min_output` (by default the quote less `slippage_bps`); below it nothing is submitted and the answer is `502 aggregator_unavailable`. ' +
        VARIANT_SPEND_RULES,
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
      description:
        'Pays `amount` into an allow-listed lending venue (`lending_program`), as POST /api/v1/deposit does, with the same answer. ' +
        VARIANT_SPEND_RULES,
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
      description:
        'Redeems receipt tokens at an allow-listed lending venue (`lending_program`), as POST /api/v1/withdraw does, with the same answer; it counts toward the hourly cap only. ' +
        VARIANT_SPEND_RULES,
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
      description:
        'Evaluates a transfer or a swap (`type`, and that operation’s fields) exactly as the decision would, on the current state: `would_succeed`, each check (`whitelisted`, `ttl_remaining_days`, `amount_remaining`, `per_tx_ok`, `daily_ok`, `hourly_ok`), the fee, and when it would fail, `reason` with the first failing check’s code. Nothing is reserved, recorded or submitted, and it takes no idempotency key.',
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
      description:
        'The agent’s balance of one token, the default stablecoin unless `mint` names a registry token (any other is `400 token_not_in_registry`), with its associated token account. Read from the agent views.',
      query: 'VariantBalanceQuery',
      response: 'VariantBalanceResponse',
    },
    getLimits: {
      method: 'get',
      path: '/limits',
      tag: 'state',
      operationId: 'getLimits',
      summary: 'The limits, what the windows hold and what remains.',
      description:
        'The agent’s three limits, what it spent in the last 24 hours and how many operations it made in the last 60 minutes, and what remains of each. Read from the agent views.',
      response: 'VariantLimitsResponse',
    },
    getHistory: {
      method: 'get',
      path: '/history',
      tag: 'state',
      operationId: 'getHistory',
      summary: 'Confirmed operations, newest first, paged by an opaque cursor.',
      description:
        'The agent’s confirmed operations (transfers, swaps, deposits, withdrawals), newest first, `limit` a page (50 by default, at most 200), filtered by `since` and `type`. The page after is asked with `next_cursor` (null on the last page); a page never repeats or skips an entry as new operations arrive, and a cursor the service did not give is `400 validation_error`.',
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
      description:
        'Subscribes `url` to the listed agent events, the deliveries signed with the `secret` the caller chose (32 to 256 characters; nothing is answered back but the subscription). The URL must be https, carry no credentials and resolve to public addresses only; any other is `400 validation_error` on `/url`.',
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
  rateLimit: AGENT_LIMIT,
  idempotencyHeader: {
    required: true,
    schema: VariantIdempotencyKey,
    description: 'Required; any UUID. A replay within 24 hours answers the original response.',
  },
};

export function variantOpenApiDocument(serverUrl = VARIANT_CONTRACT.serverUrl) {
  return buildOpenApiDocument<VariantSchemaName, AgentTagName>({ ...VARIANT_CONTRACT, serverUrl });
}
