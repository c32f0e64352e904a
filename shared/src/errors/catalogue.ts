/**
 * The error catalogue: every code the service answers with, its HTTP status and a default message
 * that tells the caller what to do. This table is the single source; `docs/errors.md` repeats it and a
 * test keeps the two equal.
 *
 * `origin: 'spec'` codes are the agent contract's (spec/agent-api.md); a listed code is used wherever
 * one fits (a body too large is validation_error, for one). `origin: 'service'` codes are this
 * product's own additions, only where no listed code fits; each says `why`.
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
    message:
      "What remains of the recipient's approved budget is less than this amount: a smaller amount may still pass, or the operator can renew the entry.",
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
  entry_daily_limit_exceeded: {
    status: 403,
    origin: 'service',
    message:
      "The amount plus what the group's agents together sent this allow-list entry in the last 24 hours exceeds the entry's daily limit.",
    why: "A limit on one counterparty across the fleet (docs/guard.md): the agent's own limits and the entry's budget still allow the spend, so daily_limit_exceeded or whitelist_amount_exhausted would point at the wrong limit.",
  },
  group_daily_limit_exceeded: {
    status: 403,
    origin: 'service',
    message:
      "The amount plus what the group's agents together spent in the last 24 hours exceeds the group's daily limit.",
    why: "A limit across the fleet (docs/guard.md): the agent's own limits still allow the spend, so daily_limit_exceeded would point at the wrong limit.",
  },
  group_hourly_tx_cap_exceeded: {
    status: 403,
    origin: 'service',
    message:
      "The group's agents together reached the group's hourly transaction cap; retry once an operation leaves the 60-minute window.",
    why: "A cap across the fleet (docs/guard.md): the agent's own cap still allows the operation, so hourly_cap_exceeded would point at the wrong limit.",
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
    why: 'The spec says a reused key must not create a second operation but names no code for a key sent again with another body; idempotency_in_progress would tell the caller to retry a request that can never succeed.',
  },
  rate_limited: {
    status: 429,
    origin: 'service',
    message: 'Too many requests; retry after the number of seconds in Retry-After.',
    why: 'The spec answers rate-limit rejections with HTTP 429 and Retry-After (per agent; here also per client address on the public reads, the sign-in routes and for failed authentication, and per wallet on the operator routes) but lists no code for them.',
  },
  forbidden: {
    status: 403,
    origin: 'service',
    message: 'The caller may not act on this resource.',
    why: 'Operator surface only: a signed-in wallet acting on a group it does not own, or not allowed to create groups. unauthorized means a missing or invalid credential, and the 403 policy codes are about spending.',
  },
  not_found: {
    status: 404,
    origin: 'service',
    message: 'No such resource.',
    why: 'An unknown route, or an operator naming a group, agent or allow-list entry that does not exist, or an airdrop on a chain that is not local; no spec code says "no such thing".',
  },
  conflict: {
    status: 409,
    origin: 'service',
    message: 'The resource is not in a state that allows this operation.',
    why: 'Operator surface only: the change contradicts the state (a revoked agent is final, an agent already invited, an agent entry removed from the allow-list); no spec code describes a state conflict.',
  },
  agent_frozen: {
    status: 403,
    origin: 'service',
    message:
      'An admin of the group, or its guard, froze this agent: every spend is refused until it is unfrozen (reads go on).',
    why: 'The kill switch (docs/governance.md), thrown by an admin or by a guard rule with freeze_agent (docs/guard.md; the message names the rule): no limit was reached, and unauthorized would tell the agent its key is wrong when the operator stopped it on purpose.',
  },
  group_frozen: {
    status: 403,
    origin: 'service',
    message:
      "An admin froze this agent's whole group: every spend is refused until it is unfrozen (reads go on).",
    why: 'The kill switch for a fleet: like agent_frozen, but the whole group is stopped, so an operator reading the log sees which switch refused the spend.',
  },
  approval_required: {
    status: 409,
    origin: 'service',
    message:
      'The spend is held for approval by the operator; retry the same request (same idempotency key) later to get its result.',
    why: 'A spend above the approval threshold (or the first to a new recipient) waits for a person; the contract allows no pending success body, and idempotency_in_progress would say the service itself is still working.',
  },
  approval_rejected: {
    status: 403,
    origin: 'service',
    message:
      'An approver rejected this spend (or the agent was revoked while it was held); nothing was sent.',
    why: 'The held spend was refused by a person, not by a policy check: no spec code says so.',
  },
  approval_expired: {
    status: 403,
    origin: 'service',
    message:
      'No approver decided on this spend before its approval expired; nothing was sent. Send it again with a new idempotency key to ask anew.',
    why: 'The held spend waited past its approval ttl: no spec code says so.',
  },
  x402_url_refused: {
    status: 400,
    origin: 'service',
    message:
      'The resource URL is refused: it must be https, carry no credentials, and reach public addresses only; nothing was requested or paid.',
    why: 'An x402 resource is reached through the same SSRF guard as webhooks; no spec code names a refused URL.',
  },
  x402_resource_unavailable: {
    status: 502,
    origin: 'service',
    message:
      'The resource could not be reached, or did not answer as an x402 resource should; nothing was paid. Retry later.',
    why: 'The paid resource is a dependency of its own: aggregator_unavailable names the aggregator alone.',
  },
  x402_not_payment_required: {
    status: 400,
    origin: 'service',
    message: 'The resource answered without asking for a payment (no 402); nothing was paid.',
    why: 'Paying through the service is only for a resource that asks for it; no spec code says so.',
  },
  x402_requirements_unsupported: {
    status: 400,
    origin: 'service',
    message:
      "The resource asks for a payment the service cannot make (only x402 v2, scheme exact, on the service's network, in a registry token); nothing was paid.",
    why: 'What the resource asks for is outside what the service pays; token_not_in_registry covers only one of the reasons.',
  },
  x402_price_above_max: {
    status: 403,
    origin: 'service',
    message: "The resource's price is above the max_amount of the request; nothing was paid.",
    why: "The agent's own ceiling for one payment, not an operator's limit: no spec code says so.",
  },
  x402_payment_refused: {
    status: 502,
    origin: 'service',
    message:
      'The resource (its facilitator) refused the signed payment and it did not land on chain, or its payee cannot receive the token (no token account for it: refused at once, nothing signed); nothing was paid.',
    why: 'A failure on the resource’s side: the intent fails and gives its room back, or (a payee without a token account, which the service sees on chain) nothing is decided at all.',
  },
  x402_payment_unsettled: {
    status: 409,
    origin: 'service',
    message:
      'The resource refused the signed payment without settling it, but it can still land until its blockhash expires; its amount stays reserved against the limits until then. Retry the same request (same idempotency key) after Retry-After seconds for the result.',
    why: 'Whoever holds a signed payment can land it until its blockhash expires: the intent cannot fail (and give its room back) before then, and the contract allows no pending success body. Like approval_required, the key stays open.',
  },
  service_unavailable: {
    status: 503,
    origin: 'service',
    message: 'A dependency of the service is unavailable; retry later.',
    why: 'A dependency (database, Redis, chain node) is down, or a write kept conflicting: retry later, with Retry-After. internal_error would call a passing outage a bug; aggregator_unavailable is the aggregator alone.',
  },
} as const satisfies Record<
  string,
  { status: number; origin: 'spec' | 'service'; message: string; why?: string }
>;

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
  'entry_daily_limit_exceeded',
  'group_daily_limit_exceeded',
  'group_hourly_tx_cap_exceeded',
] as const satisfies readonly ErrorCode[];
export type PolicyCode = (typeof POLICY_CODES)[number];

export const isErrorCode = (value: unknown): value is ErrorCode =>
  typeof value === 'string' && Object.prototype.hasOwnProperty.call(ERROR_CATALOGUE, value);
