/**
 * The operator surface (wallet sign-in, groups, allow-list, invitations, agents, the local chain's
 * airdrop) as JSON Schemas, checked by the same validator as the agent contract. Every number has
 * bounds and every string a length, so nothing out of range reaches the domain or the log; the
 * bodies take no unknown properties. Path parameters are checked by `PathParams`.
 */
import type { JSONSchema } from 'json-schema-to-ts';
import { object } from './build';
import { AmountInput, Identifier, type Shape } from './schemas';

/** The longest allow-list entry lifetime: ten years, in seconds. */
export const MAX_TTL_SECONDS = 10 * 365 * 24 * 60 * 60;
/** The largest hourly transaction cap an operator can set. */
export const MAX_HOURLY_TX_CAP = 1_000_000;

const Label = { type: 'string', minLength: 1, maxLength: 100 } as const;

/** An approval threshold: an amount of the base token, or null (none). */
const NullableAmount = { anyOf: [AmountInput, { type: 'null' }] } as const;

const LimitProperties = {
  per_tx_limit: AmountInput,
  daily_limit: AmountInput,
  hourly_tx_cap: { type: 'integer', format: 'int32', minimum: 0, maximum: MAX_HOURLY_TX_CAP },
  approval_threshold: {
    ...NullableAmount,
    description:
      'Above this value a spend of the agent is held for approval, whatever the group’s policy says; null: the group’s threshold again.',
  },
} as const;
const LIMIT_NAMES = ['per_tx_limit', 'daily_limit', 'hourly_tx_cap', 'approval_threshold'] as const;

export const LimitsInputSchema = object(LimitProperties, LIMIT_NAMES);

/** Every path parameter of the service: each is an identifier (group, agent, allow-list entry). */
const WebhookId = { type: 'string', maxLength: 47, pattern: '^wh_[1-9A-HJ-NP-Za-km-z]{32,44}$' } as const;
const EventId = { type: 'string', maxLength: 36, pattern: '^evt_[0-9a-f]{32}$' } as const;

const IntentId = {
  type: 'string',
  maxLength: 36,
  pattern: '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$',
} as const;

export const PathParams = {
  type: 'object',
  properties: {
    group: Identifier,
    agent: Identifier,
    entry: Identifier,
    webhook: WebhookId,
    intent: IntentId,
    approval: {
      type: 'string',
      maxLength: 81,
      pattern: '^[1-9A-HJ-NP-Za-km-z]{32,44}_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$',
    },
  },
} as const satisfies JSONSchema;

// ---- approvals (design.md "Approvals") ----

const Signature = {
  type: 'string',
  minLength: 1,
  maxLength: 128,
  pattern: '^[1-9A-HJ-NP-Za-km-z]+$',
} as const;

/** The group's approval policy. */
export const ApprovalPolicyRequest = object(
  {
    threshold: {
      ...NullableAmount,
      description: 'Spends valued above this (in the base token) are held; null: no threshold.',
    },
    approvers: {
      type: 'array',
      items: Identifier,
      minItems: 1,
      maxItems: 20,
      description: 'Operator wallets that approve; the owner alone when absent.',
    },
    quorum: {
      type: 'integer',
      format: 'int32',
      minimum: 1,
      maximum: 20,
      description: 'How many distinct approvers must sign (m of n); 1 when absent.',
    },
    ttl_seconds: {
      type: 'integer',
      format: 'int32',
      minimum: 1,
      maximum: 7 * 86_400,
      description: 'How long a held spend waits for a decision; 86400 when absent.',
    },
    new_recipients: {
      type: 'boolean',
      description: 'Hold the first spend to each allow-list entry, whatever its size.',
    },
  },
  ['approvers', 'quorum', 'ttl_seconds', 'new_recipients'],
);

export const ApprovalsQuery = object(
  { status: { type: 'string', enum: ['pending', 'approved', 'rejected', 'expired'] } },
  ['status'],
);

/** An approver's approval: its wallet's ed25519 signature (base58) of the approval's `message`. */
export const ApproveRequest = object({ signature: Signature });

/** A proposed policy to replay over the group's spends of a window (nothing is written). */
export const PolicyPreviewRequest = object(
  {
    ...LimitProperties,
    new_recipients: { type: 'boolean', description: 'Hold the first spend to each allow-list entry.' },
    whitelist_add: {
      type: 'array',
      maxItems: 100,
      items: object(
        {
          address: Identifier,
          type: { type: 'integer', format: 'int32', minimum: 0, maximum: 2, enum: [0, 1, 2] },
          approved_amount: AmountInput,
        },
        ['approved_amount'],
      ),
      description: 'Entries the proposal adds (a type-1 entry with its approved_amount, no TTL).',
    },
    whitelist_remove: {
      type: 'array',
      maxItems: 100,
      items: Identifier,
      description: 'Addresses the proposal takes off the allow-list.',
    },
    since: {
      type: 'string',
      format: 'date-time',
      maxLength: 64,
      description: 'The window starts here (7 days ago when absent) and ends now.',
    },
  },
  [...LIMIT_NAMES, 'new_recipients', 'whitelist_add', 'whitelist_remove', 'since'],
);

export const RejectRequest = object({ reason: { type: 'string', minLength: 1, maxLength: 200 } }, ['reason']);

/** An auditor of a group: the wallet that gets (or loses) read-only access to its log. */
export const AuditorRequest = object({ wallet: Identifier });

/** The most events one page of the audit query holds. */
export const MAX_AUDIT_PAGE = 1000;

/** The audit query: a group's events in log order, filtered, a page at a time after a cursor. */
export const AuditEventsQuery = object(
  {
    from: {
      type: 'string',
      format: 'date-time',
      maxLength: 64,
      description: 'Recorded at or after this time.',
    },
    to: { type: 'string', format: 'date-time', maxLength: 64, description: 'Recorded before this time.' },
    agent: Identifier,
    type: {
      type: 'string',
      maxLength: 1000,
      pattern: '^[a-z][a-z0-9_]*(\\.[a-z0-9_]+)+(,[a-z][a-z0-9_]*(\\.[a-z0-9_]+)+)*$',
      description:
        'One event type of the log (`intent.blocked`, `x402.payment_settled`), or several separated by commas.',
    },
    cursor: { type: 'string', minLength: 1, maxLength: 100, pattern: '^[A-Za-z0-9_-]+$' },
    limit: { type: 'integer', format: 'int32', minimum: 1, maximum: MAX_AUDIT_PAGE, default: 100 },
  },
  ['from', 'to', 'agent', 'type', 'cursor', 'limit'],
);

/** Send one event again (by its event_id), or every event since a time. */
export const RedeliverRequest = object(
  { event_id: EventId, since: { type: 'string', format: 'date-time', maxLength: 64 } },
  ['event_id', 'since'],
  { minProperties: 1, maxProperties: 1, description: 'Exactly one of event_id and since.' },
);

/** A new signing secret; the previous one keeps signing for `grace_seconds` (default a day, at most a week). */
export const RotateSecretRequest = object(
  { grace_seconds: { type: 'integer', format: 'int32', minimum: 0, maximum: 604_800 } },
  ['grace_seconds'],
);

/** The delivery log of a subscription, newest first, a page at a time. */
export const DeliveriesQuery = object(
  {
    limit: { type: 'integer', format: 'int32', minimum: 1, maximum: 100, default: 20 },
    before: { type: 'string', format: 'date-time', maxLength: 64 },
  },
  ['limit', 'before'],
);

/** The window of a reconciliation (docs/audit.md): both ends inclusive, either may be absent. */
export const ReconciliationQuery = object(
  {
    from: { type: 'string', format: 'date-time', maxLength: 64 },
    to: { type: 'string', format: 'date-time', maxLength: 64 },
  },
  ['from', 'to'],
);

/** A verification of a group's log; `expect`: digests of an earlier run, `events:digest`, comma-separated. */
export const VerificationQuery = object(
  {
    expect: {
      type: 'string',
      maxLength: 8000,
      pattern: '^[0-9]{1,12}:[0-9a-f]{64}(,[0-9]{1,12}:[0-9a-f]{64})*$',
      description:
        'Checkpoints an earlier verification gave, each `events:digest`: the running digest after that many events of the group must be the same.',
    },
  },
  ['expect'],
);

export const ChallengeRequest = object({ wallet: Identifier });

export const TokenRequest = object({
  wallet: Identifier,
  message: { type: 'string', minLength: 1, maxLength: 1024 },
  signature: { type: 'string', minLength: 1, maxLength: 128, pattern: '^[1-9A-HJ-NP-Za-km-z]+$' },
});

/** A group: its default limits, at the top level or under `default_limits`. */
export const CreateGroupRequest = object({ ...LimitProperties, default_limits: LimitsInputSchema }, [
  ...LIMIT_NAMES,
  'default_limits',
]);

export const WhitelistRequest = object(
  {
    address: Identifier,
    type: {
      type: 'integer',
      format: 'int32',
      minimum: 1,
      maximum: 2,
      enum: [1, 2],
      description: '1: an external recipient (needs approved_amount and ttl_seconds); 2: a protocol.',
    },
    label: Label,
    approved_amount: AmountInput,
    ttl_seconds: { type: 'integer', format: 'int32', minimum: 1, maximum: MAX_TTL_SECONDS },
  },
  ['label', 'approved_amount', 'ttl_seconds'],
);

export const InvitationRequest = object({ ...LimitProperties, label: Label }, [...LIMIT_NAMES, 'label']);

/** A change of an agent's limits: at least one of them. */
export const LimitsChangeRequest = {
  ...LimitsInputSchema,
  minProperties: 1,
} as const satisfies JSONSchema;

/** Actions that take no input (revoke, rotate-key): an empty object, or no body. */
export const EmptyRequest = {
  type: 'object',
  additionalProperties: false,
} as const satisfies JSONSchema;

/** The emergency withdrawal: where the agent's tokens go (the operator's own wallet when absent). */
export const EmergencyWithdrawRequest = object({ destination: Identifier }, ['destination']);

export const AirdropRequest = object({ to: Identifier, mint: Identifier, amount: AmountInput }, ['mint']);

/** The spend-over-time window: the last 24 hours (hourly buckets) or 7 days (6-hour buckets). */
export const SpendQuery = object({ window: { type: 'string', enum: ['24h', '7d'], default: '24h' } }, [
  'window',
]);

/** The group's events recorded at or after a time (all of them when absent). */
export const GroupEventsQuery = object(
  {
    since: {
      type: 'string',
      format: 'date-time',
      maxLength: 64,
      description: 'Only events recorded at or after this time (the console asks for the last day).',
    },
  },
  ['since'],
);

export const OPERATOR_SCHEMAS = {
  SpendQuery,
  GroupEventsQuery,
  PathParams,
  ChallengeRequest,
  TokenRequest,
  CreateGroupRequest,
  ApprovalPolicyRequest,
  ApprovalsQuery,
  ApproveRequest,
  RejectRequest,
  PolicyPreviewRequest,
  WhitelistRequest,
  InvitationRequest,
  LimitsChangeRequest,
  EmptyRequest,
  EmergencyWithdrawRequest,
  AirdropRequest,
  RedeliverRequest,
  RotateSecretRequest,
  DeliveriesQuery,
  AuditorRequest,
  AuditEventsQuery,
  ReconciliationQuery,
  VerificationQuery,
} as const;

export type PathParams = Shape<typeof PathParams>;
export type ChallengeRequest = Shape<typeof ChallengeRequest>;
export type TokenRequest = Shape<typeof TokenRequest>;
export type CreateGroupRequest = Shape<typeof CreateGroupRequest>;
export type WhitelistRequest = Shape<typeof WhitelistRequest>;
export type InvitationRequest = Shape<typeof InvitationRequest>;
export type LimitsChangeRequest = Shape<typeof LimitsChangeRequest>;
export type AirdropRequest = Shape<typeof AirdropRequest>;
export type EmergencyWithdrawRequest = Shape<typeof EmergencyWithdrawRequest>;
export type RedeliverRequest = Shape<typeof RedeliverRequest>;
export type RotateSecretRequest = Shape<typeof RotateSecretRequest>;
export type DeliveriesQuery = Shape<typeof DeliveriesQuery>;
export type AuditorRequest = Shape<typeof AuditorRequest>;
export type AuditEventsQuery = Shape<typeof AuditEventsQuery>;
export type ReconciliationQuery = Shape<typeof ReconciliationQuery>;
export type ApprovalPolicyRequest = Shape<typeof ApprovalPolicyRequest>;
export type ApprovalsQuery = Shape<typeof ApprovalsQuery>;
export type ApproveRequest = Shape<typeof ApproveRequest>;
export type RejectRequest = Shape<typeof RejectRequest>;
export type PolicyPreviewRequest = Shape<typeof PolicyPreviewRequest>;
export type VerificationQuery = Shape<typeof VerificationQuery>;
export type SpendQuery = Shape<typeof SpendQuery>;
export type GroupEventsQuery = Shape<typeof GroupEventsQuery>;
