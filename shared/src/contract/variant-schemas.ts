/**
 * The variant agent contract under /v1 (the "Variant" notes of spec/agent-api.md) as JSON Schema
 * 2020-12: the same building blocks as the primary's (schemas.ts), its own names and shapes. The
 * validator compiles these beside the primary's, and the variant's OpenAPI document
 * (variant-openapi.ts) is assembled from them. docs/variant.md maps each field to the primary's.
 *
 * The variant's error envelope nests the code (`{"error": {"code", "message", "details"?}}`) and
 * renames two codes (VARIANT_CODE_NAMES); everything else about errors is the primary's catalogue.
 */
import { object, openObject } from './build';
import { validate as isUuid } from 'uuid';
import { ERROR_CODES, validationError, type ErrorCode, type ValidationDetail } from '../errors';
import { EVENT_KINDS } from '../events/catalogue';
import { AmountInput, AmountOutput, Identifier, MEMO_MAX_BYTES, errorFields, type Shape } from './schemas';

// ---- building blocks -------------------------------------------------------------------------

const Count = { type: 'integer', minimum: 0 } as const;
const Confirmed = { type: 'string', enum: ['confirmed'] } as const;
const TaskId = { type: 'string', maxLength: 255 } as const;
const Memo = {
  type: 'string',
  maxLength: MEMO_MAX_BYTES,
  'x-max-utf8-bytes': MEMO_MAX_BYTES,
  description:
    'At most 200 bytes in UTF-8. Kept in the service’s log (history, webhooks); the chain’s memo carries its SHA-256 (hex).',
} as const;
const NullableAmount = { type: ['number', 'null'], minimum: 0 } as const;
const Actions = ['transfer', 'swap', 'deposit', 'withdraw'] as const;

/** The variant's header: required on transfer, swap, deposit and withdraw, and a UUID. */
export const VariantIdempotencyKey = {
  type: 'string',
  format: 'uuid',
  maxLength: 36,
  description:
    'Required on transfer, swap, deposit and withdraw; any UUID. A replay within 24 hours answers the original response.',
} as const;

/** The variant's idempotency key from its header: required, a UUID (any version); validation_error otherwise. */
export function variantIdempotencyKey(header: string | undefined): string {
  if (header === undefined || header === '')
    throw validationError(
      [{ path: '', issue: 'the Idempotency-Key header is required' }],
      'Send an Idempotency-Key header: a UUID, new for each operation, the same on a retry.',
    );
  if (!isUuid(header))
    throw validationError(
      [{ path: '', issue: 'the Idempotency-Key header must be a UUID' }],
      'Send an Idempotency-Key header: a UUID, new for each operation, the same on a retry.',
    );
  return header.toLowerCase();
}

/** Where the variant's names of error codes differ from the primary's. */
export const VARIANT_CODE_NAMES: Partial<Record<ErrorCode, string>> = {
  hourly_cap_exceeded: 'hourly_freq_exceeded',
  insufficient_balance: 'insufficient_funds',
};
export const variantCode = (code: ErrorCode): string => VARIANT_CODE_NAMES[code] ?? code;
export const VARIANT_ERROR_CODES: readonly string[] = ERROR_CODES.map(variantCode);

// ---- onboarding ------------------------------------------------------------------------------

export const VariantRegisterRequest = object({
  invitation_code: { type: 'string', minLength: 1, maxLength: 512 },
});

const VariantLimits = object({ per_tx_limit: AmountOutput, daily_limit: AmountOutput, hourly_tx_cap: Count });

export const VariantRegisterResponse = object({
  agent_wallet_pda: { type: 'string' },
  api_key: { type: 'string' },
  group_config_pda: { type: 'string' },
  limits: VariantLimits,
});

// ---- intents ---------------------------------------------------------------------------------

const TransferFields = { recipient: Identifier, amount: AmountInput, memo: Memo, task_id: TaskId } as const;

export const VariantTransferRequest = object(TransferFields, ['memo', 'task_id']);

/** What every spend of the variant answers (transfer; swap adds output_amount). */
const Envelope = {
  status: Confirmed,
  tx_signature: { type: 'string' },
  amount_sent: { ...AmountOutput, description: 'What left for the counterparty: the amount less the fee.' },
  fee: AmountOutput,
  remaining_today: AmountOutput,
  recipient_remaining: {
    ...NullableAmount,
    description: 'What remains of the recipient’s allow-list budget; null when the entry has none.',
  },
} as const;

export const VariantTransferResponse = object(Envelope);

const SwapFields = {
  input_mint: Identifier,
  output_mint: Identifier,
  input_amount: AmountInput,
  min_output: AmountInput,
  slippage_bps: { type: 'integer', format: 'int32', minimum: 0, maximum: 10000, default: 50 },
  task_id: TaskId,
} as const;

export const VariantSwapRequest = object(SwapFields, ['min_output', 'slippage_bps', 'task_id']);

export const VariantSwapResponse = object({ ...Envelope, output_amount: AmountOutput });

/** Deposit and withdraw: the primary's fields, the idempotency key in the header only. */
const VariantLendingRequest = object(
  {
    amount: AmountInput,
    lending_program: Identifier,
    mint: Identifier,
    cpi_data: {
      type: 'array',
      maxItems: 1024,
      items: { type: 'integer', format: 'int32', minimum: 0, maximum: 255 },
      description: 'Opaque instruction body forwarded to the venue.',
    },
  },
  ['mint', 'cpi_data'],
);

export const VariantDepositRequest = VariantLendingRequest;
export const VariantWithdrawRequest = VariantLendingRequest;

export const VariantDepositResponse = object({
  tx_sig: { type: 'string' },
  status: Confirmed,
  deposited_amount: AmountOutput,
});

export const VariantWithdrawResponse = object({
  tx_sig: { type: 'string' },
  status: Confirmed,
  received_amount: AmountOutput,
});

export const VariantSimulateRequest = openObject(
  { type: { type: 'string', enum: ['transfer', 'swap'] } },
  [],
  {
    if: { properties: { type: { const: 'swap' } } },
    then: {
      properties: { type: true, ...SwapFields },
      required: ['input_mint', 'output_mint', 'input_amount'],
      additionalProperties: false,
    },
    else: {
      properties: { type: true, ...TransferFields },
      required: ['recipient', 'amount'],
      additionalProperties: false,
    },
  },
);

const VariantErrorObject = openObject(errorFields(VARIANT_ERROR_CODES), ['details']);

const VariantReason = {
  ...VariantErrorObject,
  description: 'Why it would fail: the first failing check’s code.',
};

export const VariantSimulateResponse = object(
  {
    would_succeed: { type: 'boolean' },
    checks: object({
      whitelisted: { type: 'boolean' },
      ttl_remaining_days: {
        ...NullableAmount,
        description: 'Days (6 decimals) before the entry expires; 0 once expired; null when it has no TTL.',
      },
      amount_remaining: {
        ...NullableAmount,
        description: 'What remains of the entry’s budget; null when it has none.',
      },
      per_tx_ok: { type: 'boolean' },
      daily_ok: { type: 'boolean' },
      hourly_ok: { type: 'boolean' },
    }),
    fee_preview: AmountOutput,
    reason: VariantReason,
    held_by: {
      type: 'array',
      items: {
        type: 'string',
        enum: ['velocity', 'burst', 'new_counterparty', 'new_token', 'refusals', 'quiet_hours'],
      },
      description:
        'The operator’s guard rules it would trip (with `approval_required`: those that would hold it; with `agent_frozen`: the one that would freeze the agent). Absent when none would.',
    },
  },
  ['reason', 'held_by'],
  {
    if: { properties: { would_succeed: { const: false } } },
    then: { properties: { reason: VariantReason }, required: ['reason'] },
    else: { not: { properties: { reason: VariantReason }, required: ['reason'] } },
  },
);

// ---- state -----------------------------------------------------------------------------------

export const VariantBalanceQuery = object(
  {
    mint: { ...Identifier, description: 'A registry token; the default stablecoin when absent.' },
  },
  ['mint'],
);

export const VariantBalanceResponse = object({
  mint: { type: 'string' },
  balance: AmountOutput,
  associated_token_account: { type: 'string' },
});

export const VariantLimitsResponse = object({
  per_tx_limit: AmountOutput,
  daily_limit: AmountOutput,
  hourly_tx_cap: Count,
  spent_today: AmountOutput,
  remaining_today: AmountOutput,
  hourly_count: Count,
  remaining_hourly: Count,
});

/** The most a history page holds. */
export const VARIANT_HISTORY_MAX = 200;

export const VariantHistoryQuery = object(
  {
    limit: { type: 'integer', format: 'int32', minimum: 1, maximum: VARIANT_HISTORY_MAX, default: 50 },
    cursor: {
      type: 'string',
      minLength: 1,
      maxLength: 512,
      description: 'Opaque: the next_cursor of the previous page.',
    },
    since: {
      type: 'string',
      format: 'date-time',
      maxLength: 64,
      description: 'Only entries confirmed at or after it.',
    },
    type: { type: 'string', enum: Actions },
  },
  ['limit', 'cursor', 'since', 'type'],
);

export const VariantHistoryEntry = object({
  type: { type: 'string', enum: Actions },
  tx_signature: { type: 'string' },
  amount: AmountOutput,
  recipient: { type: 'string', description: 'The counterparty: recipient, aggregator or lending venue.' },
  memo: { type: ['string', 'null'] },
  fee: AmountOutput,
  confirmed_at: { type: 'string', format: 'date-time' },
});

export const VariantHistoryResponse = object({
  items: { type: 'array', items: VariantHistoryEntry },
  next_cursor: { type: ['string', 'null'], description: 'null on the last page.' },
});

// ---- webhooks --------------------------------------------------------------------------------

/** The shortest secret a caller may choose (the HMAC's key). */
export const VARIANT_SECRET_MIN_LENGTH = 32;

export const VariantWebhookRequest = object({
  url: { type: 'string', format: 'uri', pattern: '^https://', maxLength: 2048 },
  events: {
    type: 'array',
    minItems: 1,
    maxItems: EVENT_KINDS.length,
    uniqueItems: true,
    items: { type: 'string', enum: EVENT_KINDS },
  },
  secret: {
    type: 'string',
    minLength: VARIANT_SECRET_MIN_LENGTH,
    maxLength: 256,
    description:
      'Chosen by the caller, at least 32 characters. Deliveries are signed with it: X-Service-Signature keyed with its UTF-8 bytes, and webhook-signature (Standard Webhooks) keyed with its UTF-8 bytes too, or for a `whsec_<base64>` secret with the bytes the base64 decodes to.',
  },
});

export const VariantWebhookResponse = object({
  webhook_id: { type: 'string' },
  url: { type: 'string' },
  events: { type: 'array', items: { type: 'string' } },
});

// ---- errors ----------------------------------------------------------------------------------

export const VariantErrorBody = object({ error: VariantErrorObject });

/** The variant's envelope of an error (the primary's code renamed where the variant names it otherwise). */
export function variantErrorBody(e: { code: ErrorCode; message: string; details?: ValidationDetail[] }) {
  return {
    error: {
      code: variantCode(e.code),
      message: e.message,
      ...(e.details && e.code === 'validation_error' && { details: e.details }),
    },
  };
}

/** Every named schema of the variant; the key is the schema's name in its OpenAPI document. */
export const VARIANT_SCHEMAS = {
  VariantRegisterRequest,
  VariantRegisterResponse,
  VariantTransferRequest,
  VariantTransferResponse,
  VariantSwapRequest,
  VariantSwapResponse,
  VariantDepositRequest,
  VariantDepositResponse,
  VariantWithdrawRequest,
  VariantWithdrawResponse,
  VariantSimulateRequest,
  VariantSimulateResponse,
  VariantBalanceQuery,
  VariantBalanceResponse,
  VariantLimitsResponse,
  VariantHistoryQuery,
  VariantHistoryEntry,
  VariantHistoryResponse,
  VariantWebhookRequest,
  VariantWebhookResponse,
  VariantErrorBody,
} as const;

export type VariantSchemaName = keyof typeof VARIANT_SCHEMAS;

// ---- the types the handlers see ------------------------------------------------------------------

export type VariantRegisterRequest = Shape<typeof VariantRegisterRequest>;
export type VariantTransferRequest = Shape<typeof VariantTransferRequest>;
export type VariantSwapRequest = Shape<typeof VariantSwapRequest>;
export type VariantDepositRequest = Shape<typeof VariantDepositRequest>;
export type VariantWithdrawRequest = Shape<typeof VariantWithdrawRequest>;
export type VariantBalanceQuery = Shape<typeof VariantBalanceQuery>;
export type VariantHistoryQuery = Shape<typeof VariantHistoryQuery>;
export type VariantWebhookRequest = Shape<typeof VariantWebhookRequest>;
/** The simulate request: a transfer's or a swap's fields, with their `type`. */
export type VariantSimulateRequest =
  (VariantTransferRequest & { type: 'transfer' }) | (VariantSwapRequest & { type: 'swap' });
