/**
 * The error catalogue: every code the service answers with, its HTTP status and a default message
 * that tells the caller what to do. This table is the single source; `docs/errors.md` repeats it and a
 * test keeps the two equal.
 *
 * `origin: 'spec'` codes are the agent contract's (spec/agent-api.md). `origin: 'service'` codes are
 * this product's own additions for situations the contract leaves open (unknown route, operator
 * authorisation, rate limiting, an idempotency key reused with another body, a dependency down).
 */
export const ERROR_CATALOGUE = {
  whitelist_violation: {
    status: 403,
    origin: 'spec',
    message: 'The recipient is not on your group allow-list; ask the operator to add it.',
  },
  whitelist_expired: {
    status: 403,
    origin: 'spec',
    message: "The recipient's allow-list entry has expired; ask the operator to renew it.",
  },
  whitelist_amount_exhausted: {
    status: 403,
    origin: 'spec',
    message: "The amount exceeds what remains of the recipient's approved budget.",
  },
  daily_limit_exceeded: {
    status: 403,
    origin: 'spec',
    message: 'The amount plus what was spent in the last 24 hours exceeds the daily limit.',
  },
  per_tx_limit_exceeded: {
    status: 403,
    origin: 'spec',
    message: 'The amount exceeds the per-transaction limit.',
  },
  hourly_cap_exceeded: {
    status: 403,
    origin: 'spec',
    message: 'The hourly transaction cap is reached; retry once an operation leaves the 60-minute window.',
  },
  unauthorized: {
    status: 401,
    origin: 'spec',
    message: 'Missing, invalid or revoked API key; send Authorization: Bearer <api_key>.',
  },
  invalid_amount: {
    status: 400,
    origin: 'spec',
    message: 'The amount must be a positive decimal with at most 6 decimals.',
  },
  invalid_mint: { status: 400, origin: 'spec', message: 'The mint is not a valid token identifier.' },
  invalid_token_account: { status: 400, origin: 'spec', message: 'The token account was rejected.' },
  invalid_fee_account: { status: 400, origin: 'spec', message: 'The fee account was rejected.' },
  invalid_invitation_code: {
    status: 400,
    origin: 'spec',
    message: 'The invitation code is unknown, expired or already redeemed; ask the operator for a new one.',
  },
  idempotency_in_progress: {
    status: 409,
    origin: 'spec',
    message: 'An operation with this idempotency key is still running; retry the same request later.',
  },
  aggregator_unavailable: {
    status: 502,
    origin: 'spec',
    message: 'The swap aggregator is unavailable; retry later.',
  },
  token_not_in_registry: {
    status: 400,
    origin: 'spec',
    message: 'The token is not in the registry; GET /api/v1/tokens lists the supported tokens.',
  },
  recipient_invalid: { status: 400, origin: 'spec', message: 'The recipient is not a valid address.' },
  account_not_initialized: { status: 400, origin: 'spec', message: 'The account is not initialized.' },
  insufficient_balance: {
    status: 400,
    origin: 'spec',
    message: 'The balance is too low for this operation.',
  },
  validation_error: {
    status: 400,
    origin: 'spec',
    message: 'The request does not match the contract; see details.',
  },
  internal_error: {
    status: 500,
    origin: 'spec',
    message: 'Unexpected failure; the operation was not performed. Retry later.',
  },
  idempotency_key_reused: {
    status: 409,
    origin: 'service',
    message: 'This idempotency key was already used with a different request body; use a new key.',
  },
  rate_limited: {
    status: 429,
    origin: 'service',
    message: 'Too many requests; retry after the number of seconds in Retry-After.',
  },
  payload_too_large: {
    status: 413,
    origin: 'service',
    message: 'The request body is larger than the service accepts.',
  },
  forbidden: {
    status: 403,
    origin: 'service',
    message: 'The caller may not act on this resource.',
  },
  not_found: { status: 404, origin: 'service', message: 'No such resource.' },
  conflict: {
    status: 409,
    origin: 'service',
    message: 'The resource is not in a state that allows this operation.',
  },
  service_unavailable: {
    status: 503,
    origin: 'service',
    message: 'A dependency of the service is unavailable; retry later.',
  },
} as const satisfies Record<string, { status: number; origin: 'spec' | 'service'; message: string }>;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;

export const ERROR_CODES = Object.keys(ERROR_CATALOGUE) as ErrorCode[];

/** The codes a policy check can block a spending operation with (all HTTP 403). */
export const POLICY_CODES = [
  'whitelist_violation',
  'whitelist_expired',
  'whitelist_amount_exhausted',
  'per_tx_limit_exceeded',
  'daily_limit_exceeded',
  'hourly_cap_exceeded',
] as const satisfies readonly ErrorCode[];
export type PolicyCode = (typeof POLICY_CODES)[number];

export const isErrorCode = (value: unknown): value is ErrorCode =>
  typeof value === 'string' && Object.prototype.hasOwnProperty.call(ERROR_CATALOGUE, value);
