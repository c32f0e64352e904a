/**
 * The primary /api/v1 agent contract (spec/agent-api.md) as JSON Schema 2020-12, one constant per
 * request body, query, response and error body. The validator (validator.ts) compiles these with ajv
 * in strict mode and the OpenAPI document (openapi.ts) is assembled from the same constants, so the
 * contract is written once.
 *
 * An amount is said in standard JSON Schema, so generic tools (OpenAPI clients, MCP hosts, test
 * generators) see the rule: `anyOf` a non-negative number that is a multiple of 0.000001, or a decimal
 * string with at most 6 decimals. The validator reads numbers from their source text (never through a
 * float) and checks `multipleOf` in exact decimal; the `x-amount` keyword adds what JSON Schema cannot
 * say of a string (the u64 range of base units) and names the failure. A failure of an amount field is
 * `invalid_amount`; every other failure is `validation_error`.
 */
import type { FromSchema, JSONSchema } from 'json-schema-to-ts';
import { object } from './build';
import { ERROR_CODES } from '../errors';
import { EVENT_KINDS } from '../events/catalogue';

// ---- building blocks -------------------------------------------------------------------------

/** Opaque base58 identifier of 32 to 44 characters (mint, recipient, program). */
export const Identifier = {
  type: 'string',
  minLength: 32,
  maxLength: 44,
  pattern: '^[1-9A-HJ-NP-Za-km-z]+$',
} as const;

/** An amount in a request: a JSON number or a decimal string (which keeps every digit). */
export const AmountNumber = {
  type: 'number',
  minimum: 0,
  // The u64 of base units (18446744073709.551615) as near as a float gets; x-amount checks it exactly.
  maximum: 18446744073709.55,
  multipleOf: 0.000001,
} as const;
export const AmountString = {
  type: 'string',
  maxLength: 64,
  pattern: '^[0-9]+(\\.[0-9]{1,6}0*)?$',
} as const;
export const AmountInput = {
  anyOf: [AmountNumber, AmountString],
  'x-amount': true,
  description:
    'Human units, >= 0, at most 6 decimals (at most 18446744073709.551615). A decimal string ("12.5") is accepted too.',
} as const;

/** An amount in a response (always a JSON number, written from its exact decimal). */
export const AmountOutput = { type: 'number', minimum: 0 } as const;
const Count = { type: 'integer', minimum: 0 } as const;

export const IdempotencyKey = { type: 'string', minLength: 1, maxLength: 255 } as const;
const Confirmed = { type: 'string', enum: ['confirmed'] } as const;
const TaskId = {
  type: 'string',
  maxLength: 255,
  description: 'Caller-defined task identifier, kept in the history and the webhook payload.',
} as const;
/** The memo travels to the chain, whose memo counts bytes: at most 200 bytes of UTF-8. */
export const MEMO_MAX_BYTES = 200;
const Memo = {
  type: 'string',
  // Standard bound first (200 bytes are at most 200 characters); the exact one counts the bytes.
  maxLength: MEMO_MAX_BYTES,
  'x-max-utf8-bytes': MEMO_MAX_BYTES,
  description: 'Free-form, at most 200 bytes in UTF-8; included in the webhook payload.',
} as const;

const LimitFields = {
  daily_limit: AmountOutput,
  daily_remaining: AmountOutput,
  per_tx_limit: AmountOutput,
  hourly_tx_cap: Count,
  hourly_tx_remaining: Count,
} as const;

// ---- onboarding ------------------------------------------------------------------------------

export const RegisterRequest = object({
  invitation_code: {
    type: 'string',
    minLength: 1,
    maxLength: 512,
    description: 'The one-time code the operator gave.',
  },
});

export const RegisterResponse = {
  type: 'object',
  properties: { agent_wallet_pda: { type: 'string' }, api_key: { type: 'string' } },
  required: ['agent_wallet_pda', 'api_key'],
} as const satisfies JSONSchema;

// ---- intents ---------------------------------------------------------------------------------

/** A field's schema with what it means (a building block is shared by fields of different meanings). */
const described = <S extends object, D extends string>(schema: S, description: D) => ({
  ...schema,
  description,
});

const SpendKey = described(
  IdempotencyKey,
  'Caller-chosen key of this operation: a retry with the same key never makes a second one.',
);
const TokenMint = described(
  Identifier,
  'The token (its mint, see the token registry); the group base token when absent.',
);

export const TransferRequest = {
  type: 'object',
  properties: {
    to: described(Identifier, 'The recipient address; it must be on the operator allow-list.'),
    amount: AmountInput,
    idempotency_key: SpendKey,
    mint: TokenMint,
    memo: Memo,
    task_id: TaskId,
  },
  required: ['to', 'amount', 'idempotency_key'],
} as const satisfies JSONSchema;

export const TransferResponse = {
  type: 'object',
  properties: {
    tx_sig: { type: 'string' },
    status: Confirmed,
    net_amount: AmountOutput,
    protocol_fee: AmountOutput,
    daily_remaining: AmountOutput,
    hourly_tx_remaining: Count,
  },
  required: ['tx_sig', 'status', 'net_amount', 'protocol_fee', 'daily_remaining', 'hourly_tx_remaining'],
} as const satisfies JSONSchema;

const SwapAmount = {
  ...AmountInput,
  description:
    'Amount of from_token to sell, human units, at most 6 decimals (a decimal string is accepted too).',
} as const;
const MinimumAmountOut = {
  ...AmountInput,
  description: 'The least amount of to_token to accept; by default the quote less slippage_bps.',
} as const;

export const SwapRequest = {
  type: 'object',
  properties: {
    from_token: { type: 'string', minLength: 1, maxLength: 32, description: 'Symbol of the token sold.' },
    to_token: { type: 'string', minLength: 1, maxLength: 32, description: 'Symbol of the token bought.' },
    from_mint: described(Identifier, 'Mint of the token sold (see the token registry).'),
    to_mint: described(Identifier, 'Mint of the token bought (see the token registry).'),
    amount: SwapAmount,
    idempotency_key: SpendKey,
    minimum_amount_out: MinimumAmountOut,
    slippage_bps: {
      type: 'integer',
      format: 'int32',
      minimum: 0,
      maximum: 10000,
      default: 50,
      description: 'Tolerated slippage from the quote, in basis points (when minimum_amount_out is absent).',
    },
    task_id: TaskId,
  },
  required: ['from_token', 'to_token', 'from_mint', 'to_mint', 'amount', 'idempotency_key'],
} as const satisfies JSONSchema;

export const SwapResponse = {
  type: 'object',
  properties: {
    tx_sig: { type: 'string' },
    status: Confirmed,
    received_amount: AmountOutput,
    rate: { type: 'number', minimum: 0, description: 'Effective rate: received_amount / amount.' },
    daily_remaining: AmountOutput,
    hourly_tx_remaining: Count,
  },
  required: ['tx_sig', 'status', 'received_amount', 'rate', 'daily_remaining', 'hourly_tx_remaining'],
} as const satisfies JSONSchema;

const LendingRequest = {
  type: 'object',
  properties: {
    amount: AmountInput,
    lending_program: described(
      Identifier,
      'The lending venue (see the venues); it must be on the allow-list.',
    ),
    idempotency_key: SpendKey,
    mint: TokenMint,
    cpi_data: {
      type: 'array',
      maxItems: 1024,
      items: { type: 'integer', format: 'int32', minimum: 0, maximum: 255 },
      description: 'Opaque instruction body forwarded to the venue.',
    },
  },
  required: ['amount', 'lending_program', 'idempotency_key'],
} as const satisfies JSONSchema;

export const DepositRequest = LendingRequest;
export const WithdrawRequest = LendingRequest;

export const DepositResponse = {
  type: 'object',
  properties: { tx_sig: { type: 'string' }, status: Confirmed, deposited_amount: AmountOutput },
  required: ['tx_sig', 'status', 'deposited_amount'],
} as const satisfies JSONSchema;

export const WithdrawResponse = {
  type: 'object',
  properties: { tx_sig: { type: 'string' }, status: Confirmed, received_amount: AmountOutput },
  required: ['tx_sig', 'status', 'received_amount'],
} as const satisfies JSONSchema;

export const SimulateRequest = {
  type: 'object',
  properties: {
    amount: AmountInput,
    mint: TokenMint,
    to: described(Identifier, 'The recipient to check against the allow-list.'),
  },
  required: ['amount'],
} as const satisfies JSONSchema;

const Reason = { type: 'string', enum: ERROR_CODES } as const;

export const SimulateResponse = {
  type: 'object',
  properties: {
    would_succeed: { type: 'boolean' },
    daily_remaining: AmountOutput,
    hourly_tx_remaining: Count,
    estimated_fee: AmountOutput,
    reason: Reason,
  },
  required: ['would_succeed', 'daily_remaining', 'hourly_tx_remaining', 'estimated_fee'],
  // `reason` is present only when would_succeed is false.
  if: { properties: { would_succeed: { const: false } } },
  then: { properties: { reason: Reason }, required: ['reason'] },
  else: { not: { properties: { reason: Reason }, required: ['reason'] } },
} as const satisfies JSONSchema;

// ---- x402 ------------------------------------------------------------------------------------

export const X402PayRequest = {
  type: 'object',
  properties: {
    url: {
      // No `^https://` pattern here: a URL the service will not request (not https, credentials in it,
      // port 0, an address the SSRF guard refuses) is one answer, 400 x402_url_refused (x402/resource.ts).
      type: 'string',
      format: 'uri',
      maxLength: 2048,
      description:
        'The resource: https, public addresses only, no credentials; redirects are not followed, a fragment is not sent. Any other URL is refused with 400 x402_url_refused, nothing requested. It must answer 402 with x402 v2 requirements.',
    },
    method: {
      type: 'string',
      enum: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'],
      default: 'GET',
      description: 'The HTTP method of the request (and of its paid retry).',
    },
    headers: {
      type: 'object',
      maxProperties: 32,
      additionalProperties: { type: 'string', maxLength: 4096 },
      description:
        'Headers sent with the request (Host, Content-Length and the x402 headers are the service’s).',
    },
    body: { type: 'string', maxLength: 65536, description: 'The request body, as text.' },
    max_amount: {
      ...AmountInput,
      description:
        'The most the resource may charge, in human units of the token it asks for; the 0.10 % protocol fee is on top.',
    },
    idempotency_key: SpendKey,
    task_id: TaskId,
  },
  required: ['url', 'max_amount', 'idempotency_key'],
} as const satisfies JSONSchema;

export const X402Resource = {
  type: 'object',
  properties: {
    status: { type: 'integer', format: 'int32', minimum: 100, maximum: 599 },
    headers: {
      type: 'object',
      additionalProperties: { type: 'string' },
      description: 'content-type and the x402 headers (payment-response), lower-case names.',
    },
    body: { type: 'string', description: 'The body as text (UTF-8), at most 64 KiB.' },
    truncated: { type: 'boolean', description: 'Present (true) when the body was cut at 64 KiB.' },
  },
  required: ['status', 'headers', 'body'],
  description: "The resource's answer to the paid request.",
} as const satisfies JSONSchema;

export const X402PayResponse = {
  type: 'object',
  properties: {
    tx_sig: { type: 'string', description: 'The payment’s transaction (the facilitator’s settlement).' },
    status: Confirmed,
    amount: { ...AmountOutput, description: 'The price paid to pay_to.' },
    protocol_fee: {
      ...AmountOutput,
      description: 'The 0.10 % fee taken on top, in a transaction of its own.',
    },
    pay_to: { type: 'string', description: 'The payee (the requirement’s payTo).' },
    resource: X402Resource,
    daily_remaining: AmountOutput,
    hourly_tx_remaining: Count,
  },
  required: [
    'tx_sig',
    'status',
    'amount',
    'protocol_fee',
    'pay_to',
    'daily_remaining',
    'hourly_tx_remaining',
  ],
} as const satisfies JSONSchema;

// ---- state -----------------------------------------------------------------------------------

export const BalanceResponse = {
  type: 'object',
  properties: {
    balances: { type: 'object', additionalProperties: AmountOutput },
    ...LimitFields,
  },
  required: [
    'balances',
    'daily_limit',
    'daily_remaining',
    'per_tx_limit',
    'hourly_tx_cap',
    'hourly_tx_remaining',
  ],
} as const satisfies JSONSchema;

export const LimitsResponse = {
  type: 'object',
  properties: { ...LimitFields, group_id: { type: 'string' } },
  required: [
    'daily_limit',
    'daily_remaining',
    'per_tx_limit',
    'hourly_tx_cap',
    'hourly_tx_remaining',
    'group_id',
  ],
} as const satisfies JSONSchema;

export const HistoryQuery = {
  type: 'object',
  properties: {
    limit: {
      type: 'integer',
      format: 'int32',
      minimum: 1,
      maximum: 100,
      default: 20,
      description: 'How many entries at most.',
    },
  },
} as const satisfies JSONSchema;

export const HistoryEntry = {
  type: 'object',
  properties: {
    tx_sig: { type: 'string' },
    action: { type: 'string', enum: ['transfer', 'swap'] },
    amount: AmountOutput,
    timestamp: { type: 'integer', description: 'Unix epoch seconds.' },
    memo: { type: 'string' },
    net_amount: AmountOutput,
    protocol_fee: AmountOutput,
    task_id: { type: 'string' },
    to: { type: 'string' },
    token: { type: 'string' },
  },
  required: ['tx_sig', 'action', 'amount', 'timestamp'],
} as const satisfies JSONSchema;

export const HistoryResponse = {
  type: 'object',
  properties: { transactions: { type: 'array', items: HistoryEntry } },
  required: ['transactions'],
} as const satisfies JSONSchema;

// ---- webhooks --------------------------------------------------------------------------------

export const WebhookRequest = {
  type: 'object',
  properties: {
    url: {
      type: 'string',
      format: 'uri',
      pattern: '^https://',
      maxLength: 2048,
      description: 'The HTTPS URL that receives the events.',
    },
    event_types: {
      type: 'array',
      minItems: 1,
      maxItems: EVENT_KINDS.length,
      uniqueItems: true,
      items: { type: 'string', enum: EVENT_KINDS },
      description: 'Event kinds of the catalogue (docs/events.md), distinct, at least one.',
    },
  },
  required: ['url', 'event_types'],
} as const satisfies JSONSchema;

export const WebhookResponse = {
  type: 'object',
  properties: { webhook_id: { type: 'string' }, signing_secret: { type: 'string' } },
  required: ['webhook_id', 'signing_secret'],
} as const satisfies JSONSchema;

// ---- errors ----------------------------------------------------------------------------------

/** The failures of a validation_error, one per failing field (both contracts' error bodies). */
export const ErrorDetails = {
  type: 'array',
  items: {
    type: 'object',
    properties: {
      path: { type: 'string', description: 'JSON Pointer to the failing field.' },
      issue: { type: 'string' },
    },
    required: ['path', 'issue'],
  },
} as const;

/**
 * The fields of every error, whatever its envelope: its code (one of `codes`, as the contract names
 * them), a message, and on validation_error the details.
 */
export const errorFields = <const Codes extends readonly string[]>(codes: Codes) =>
  ({
    code: { type: 'string', enum: codes },
    message: { type: 'string' },
    details: ErrorDetails,
  }) as const;

const { code: errorCode, ...errorText } = errorFields(ERROR_CODES);

export const ErrorBody = {
  type: 'object',
  properties: { error: errorCode, ...errorText },
  required: ['error', 'message'],
  // `details` is present only on validation_error.
  if: { properties: { error: { const: 'validation_error' } } },
  then: { properties: { details: ErrorDetails }, required: ['details'] },
  else: { not: { properties: { details: ErrorDetails }, required: ['details'] } },
} as const satisfies JSONSchema;

/** Every named schema of the contract; the key is the schema's name in the OpenAPI document. */
export const CONTRACT_SCHEMAS = {
  RegisterRequest,
  RegisterResponse,
  TransferRequest,
  TransferResponse,
  SwapRequest,
  SwapResponse,
  DepositRequest,
  DepositResponse,
  WithdrawRequest,
  WithdrawResponse,
  SimulateRequest,
  SimulateResponse,
  X402PayRequest,
  X402PayResponse,
  BalanceResponse,
  LimitsResponse,
  HistoryQuery,
  HistoryEntry,
  HistoryResponse,
  WebhookRequest,
  WebhookResponse,
  ErrorBody,
} as const;

/** The name of a schema of the agent contract (the OpenAPI document's components). */
export type ContractSchemaName = keyof typeof CONTRACT_SCHEMAS;

// ---- the types the handlers see (derived from the schemas, never written twice) ----------------

type AmountValue = number | string;
/** The type a schema validates to (amounts as the number or text they arrive as); every contract's. */
export type Shape<S extends JSONSchema> = FromSchema<
  S,
  { deserialize: [{ pattern: { 'x-amount': true }; output: AmountValue }] }
>;

export type RegisterRequest = Shape<typeof RegisterRequest>;
export type RegisterResponse = Shape<typeof RegisterResponse>;
export type TransferRequest = Shape<typeof TransferRequest>;
export type TransferResponse = Shape<typeof TransferResponse>;
export type SwapRequest = Shape<typeof SwapRequest>;
export type SwapResponse = Shape<typeof SwapResponse>;
export type DepositRequest = Shape<typeof DepositRequest>;
export type DepositResponse = Shape<typeof DepositResponse>;
export type WithdrawRequest = Shape<typeof WithdrawRequest>;
export type WithdrawResponse = Shape<typeof WithdrawResponse>;
export type SimulateRequest = Shape<typeof SimulateRequest>;
export type SimulateResponse = Shape<typeof SimulateResponse>;
export type X402PayRequest = Shape<typeof X402PayRequest>;
export type X402PayResponse = Shape<typeof X402PayResponse>;
export type BalanceResponse = Shape<typeof BalanceResponse>;
export type LimitsResponse = Shape<typeof LimitsResponse>;
export type HistoryQuery = Shape<typeof HistoryQuery>;
export type HistoryEntry = Shape<typeof HistoryEntry>;
export type HistoryResponse = Shape<typeof HistoryResponse>;
export type WebhookRequest = Shape<typeof WebhookRequest>;
export type WebhookResponse = Shape<typeof WebhookResponse>;
export type ErrorBodyShape = Shape<typeof ErrorBody>;
