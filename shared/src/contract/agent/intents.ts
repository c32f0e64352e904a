/**
 * The agent contract's intents (spec/agent-api.md): transfer, swap, deposit, withdraw, the simulation
 * of a transfer, and paying an HTTP resource that asks for it (x402, docs/x402.md). Each spend is a
 * spend kind of the one pipeline (shared/src/application/spends).
 */
import { openObject } from '../build';
import { ERROR_CODES } from '../../errors';
import { contractTag } from '../openapi';
import {
  AmountInput,
  AmountOutput,
  Count,
  IdempotencyKey,
  Identifier,
  MEMO_MAX_BYTES,
  type Shape,
} from '../schemas';

const Confirmed = { type: 'string', enum: ['confirmed'] } as const;

/** What every spend's description says of the one pipeline (its checks, holds and idempotency). */
const SPEND_RULES =
  'Every check is made in one decision on the log, so parallel requests never exceed a limit: the allow-list entry of the counterparty (its TTL and budget), the per-transaction limit, the daily limit (the last 24 hours) and the hourly cap, each counting the value in the group’s base token; a refusal is 403 with its code (`whitelist_violation`, `whitelist_expired`, `whitelist_amount_exhausted`, `per_tx_limit_exceeded`, `daily_limit_exceeded`, `hourly_cap_exceeded`) and nothing is sent. A spend above the approval threshold is held: `409 approval_required`, and the same request again answers its outcome once an approver decided (`403 approval_rejected`, `403 approval_expired`). Answered once the transaction is confirmed on chain. Idempotent by `idempotency_key` (and the optional `idempotency-key` header, which must equal it): the same key and body answer what the first request answered and never spend twice (`409 idempotency_in_progress` while it runs); the same key with another body is `409 idempotency_key_reused`.';

const TaskId = {
  type: 'string',
  maxLength: 255,
  description: 'Caller-defined task identifier, kept in the history and the webhook payload.',
} as const;

const Memo = {
  type: 'string',
  // Standard bound first (200 bytes are at most 200 characters); the exact one counts the bytes.
  maxLength: MEMO_MAX_BYTES,
  'x-max-utf8-bytes': MEMO_MAX_BYTES,
  description: 'Free-form, at most 200 bytes in UTF-8; included in the webhook payload.',
} as const;

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

export const TransferRequest = openObject(
  {
    to: described(Identifier, 'The recipient address; it must be on the operator allow-list.'),
    amount: AmountInput,
    idempotency_key: SpendKey,
    mint: TokenMint,
    memo: Memo,
    task_id: TaskId,
  },
  ['mint', 'memo', 'task_id'],
);

export const TransferResponse = openObject({
  tx_sig: { type: 'string' },
  status: Confirmed,
  net_amount: AmountOutput,
  protocol_fee: AmountOutput,
  daily_remaining: AmountOutput,
  hourly_tx_remaining: Count,
});

const SwapAmount = {
  ...AmountInput,
  description:
    'Amount of from_token to sell, human units, at most 6 decimals (a decimal string is accepted too).',
} as const;

const MinimumAmountOut = {
  ...AmountInput,
  description: 'The least amount of to_token to accept; by default the quote less slippage_bps.',
} as const;

export const SwapRequest = openObject(
  {
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
  ['minimum_amount_out', 'slippage_bps', 'task_id'],
);

export const SwapResponse = openObject({
  tx_sig: { type: 'string' },
  status: Confirmed,
  received_amount: AmountOutput,
  rate: { type: 'number', minimum: 0, description: 'Effective rate: received_amount / amount.' },
  daily_remaining: AmountOutput,
  hourly_tx_remaining: Count,
});

const LendingRequest = openObject(
  {
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
  ['mint', 'cpi_data'],
);

export const DepositRequest = LendingRequest;
export const WithdrawRequest = LendingRequest;

export const DepositResponse = openObject({
  tx_sig: { type: 'string' },
  status: Confirmed,
  deposited_amount: AmountOutput,
});

export const WithdrawResponse = openObject({
  tx_sig: { type: 'string' },
  status: Confirmed,
  received_amount: AmountOutput,
});

export const SimulateRequest = openObject(
  {
    amount: AmountInput,
    mint: TokenMint,
    to: described(Identifier, 'The recipient to check against the allow-list.'),
  },
  ['mint', 'to'],
);

const Reason = { type: 'string', enum: ERROR_CODES } as const;

export const SimulateResponse = openObject(
  {
    would_succeed: { type: 'boolean' },
    daily_remaining: AmountOutput,
    hourly_tx_remaining: Count,
    estimated_fee: AmountOutput,
    reason: Reason,
    held_by: {
      type: 'array',
      items: {
        type: 'string',
        enum: ['velocity', 'burst', 'new_counterparty', 'new_token', 'refusals', 'quiet_hours'],
      },
      description:
        'The operator’s guard rules the transfer would trip: with `approval_required` the rules that would hold it, with `agent_frozen` the rule that would freeze the agent. Absent when none would.',
    },
  },
  ['reason', 'held_by'],
  {
    // `reason` is present only when would_succeed is false.
    if: { properties: { would_succeed: { const: false } } },
    then: { properties: { reason: Reason }, required: ['reason'] },
    else: { not: { properties: { reason: Reason }, required: ['reason'] } },
  },
);

// ---- x402 ------------------------------------------------------------------------------------

export const X402PayRequest = openObject(
  {
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
  ['method', 'headers', 'body', 'task_id'],
);

export const X402Resource = openObject(
  {
    status: { type: 'integer', format: 'int32', minimum: 100, maximum: 599 },
    headers: {
      type: 'object',
      additionalProperties: { type: 'string' },
      description: 'content-type and the x402 headers (payment-response), lower-case names.',
    },
    body: { type: 'string', description: 'The body as text (UTF-8), at most 64 KiB.' },
    truncated: { type: 'boolean', description: 'Present (true) when the body was cut at 64 KiB.' },
  },
  ['truncated'],
  {
    description: "The resource's answer to the paid request.",
  },
);

export const X402PayResponse = openObject(
  {
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
  ['resource'],
);

export const AGENT_INTENTS = contractTag({
  name: 'intents',
  description: 'Transfer, swap, deposit, withdraw, simulate.',
  schemas: {
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
  },
  operations: {
    transfer: {
      method: 'post',
      path: '/transfer',
      tag: 'intents',
      operationId: 'transfer',
      summary: 'Send tokens to an allow-listed recipient; a 0.10 % protocol fee is deducted.',
      description:
        'Sends `amount` of a registry token (`mint`, the group’s base token when absent) to `to`; the 0.10 % protocol fee goes to the treasury in the same transaction, and `net_amount` is what the recipient receives. ' +
        SPEND_RULES,
      request: 'TransferRequest',
      response: 'TransferResponse',
      idempotent: true,
    },
    swap: {
      method: 'post',
      path: '/swap',
      tag: 'intents',
      operationId: 'swap',
      summary: 'Swap through the configured aggregator under the spend limits, with a minimum output.',
      description:
        'Sells `amount` of `from_mint` for `to_mint` through the aggregator, never below the minimum output: `minimum_amount_out`, or by default the quote less `slippage_bps` (50). The executor quotes again before it signs; below the minimum nothing is submitted and the answer is `502 aggregator_unavailable`, as when the aggregator cannot quote. ' +
        SPEND_RULES,
      request: 'SwapRequest',
      response: 'SwapResponse',
      idempotent: true,
    },
    deposit: {
      method: 'post',
      path: '/deposit',
      tag: 'intents',
      operationId: 'deposit',
      summary: 'Deposit into an allow-listed lending venue.',
      description:
        'Pays `amount` of a registry token into the lending venue `lending_program`, which mints its receipt tokens to the agent in the same transaction. The venue must be one the service operates (GET /venues, else `400 validation_error`) and on the group’s allow-list (else `403 whitelist_violation`); `cpi_data` is checked against the layouts the venue adapter knows. ' +
        SPEND_RULES,
      request: 'DepositRequest',
      response: 'DepositResponse',
      idempotent: true,
    },
    withdraw: {
      method: 'post',
      path: '/withdraw',
      tag: 'intents',
      operationId: 'withdraw',
      summary: 'Withdraw from an allow-listed lending venue.',
      description:
        'Redeems `amount` of receipt tokens at the lending venue `lending_program` (the position named by `mint`, its underlying or receipt token); the venue pays the underlying at its rate of that moment, answered as `received_amount`. The venue must be one the service operates and on the group’s allow-list, as for a deposit; a withdrawal counts toward the hourly cap only. ' +
        SPEND_RULES,
      request: 'WithdrawRequest',
      response: 'WithdrawResponse',
      idempotent: true,
    },
    simulateTransfer: {
      method: 'post',
      path: '/intents/simulate',
      tag: 'intents',
      operationId: 'simulateTransfer',
      summary: 'Dry-run a transfer under the current limits; nothing is submitted.',
      description:
        'Runs every check of a transfer (the recipient’s allow-list entry when `to` is given, the per-transaction, daily and hourly limits) on the current state, and answers what a transfer would meet: `would_succeed`, the fee it would take, and when it would fail, `reason`, the code a transfer would answer. Nothing is reserved, recorded or submitted, and it does not count toward the limits.',
      request: 'SimulateRequest',
      response: 'SimulateResponse',
    },
    payX402: {
      method: 'post',
      path: '/x402/pay',
      tag: 'intents',
      operationId: 'payX402',
      summary:
        'Pay an HTTP resource that answers 402 (x402, scheme exact on Solana) as a transfer to its payTo, under the same limits; the answer carries the resource’s reply.',
      description:
        'Requests `url` (https, no credentials, public addresses only: else `400 x402_url_refused`, nothing requested), reads the 402’s requirements, and pays the `exact` one on the service’s network in a registry token, as a transfer to its `payTo`: the price goes to the payee in full and the 0.10 % protocol fee is taken on top, in a transaction of its own. Refused before anything is paid: a resource that asks no payment (`400 x402_not_payment_required`), one the service cannot pay (`400 x402_requirements_unsupported`), a price above `max_amount` (`403 x402_price_above_max`), a payee without a token account for the token (`502 x402_payment_refused`). The request is then sent again with the signed payment, and the answer carries the resource’s reply (`resource`). While a payment the resource refused can still land, the answer is `409 x402_payment_unsettled` with Retry-After. ' +
        SPEND_RULES,
      request: 'X402PayRequest',
      response: 'X402PayResponse',
      idempotent: true,
    },
  },
});

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
