/**
 * What the operator surface answers, as JSON Schemas: one constant per answer, the operator OpenAPI
 * document's components (operator-openapi.ts) and what the embedded service checks every operator
 * answer against when `checkResponses` is on. No answer carries a property these do not name.
 *
 * Amounts of groups, limits and allow-list entries are exact decimal text ("250", "0.5"); those of an
 * emergency withdrawal, a pool and an airdrop are JSON numbers written from their exact decimal.
 */
import { object } from './build';
import { EVENT_KINDS } from '../events/catalogue';
import { AmountOutput, Identifier } from './schemas';

const Timestamp = { type: 'string', format: 'date-time' } as const;
const NullableTimestamp = { type: ['string', 'null'], format: 'date-time' } as const;
const NullableText = { type: ['string', 'null'] } as const;
const Text = { type: 'string' } as const;
const Count = { type: 'integer', minimum: 0 } as const;
/** A decimal amount as exact text. */
const AmountText = {
  type: 'string',
  pattern: '^[0-9]+(\\.[0-9]+)?$',
  description: 'An exact decimal, in human units.',
} as const;

const LimitsData = object(
  { per_tx_limit: AmountText, daily_limit: AmountText, hourly_tx_cap: Count, approval_threshold: AmountText },
  ['approval_threshold'],
);

const WebhookId = { type: 'string', pattern: '^wh_' } as const;

// ---- sign-in ---------------------------------------------------------------------------------

export const ChallengeResponse = object({
  message: {
    type: 'string',
    description: 'Sign this text (UTF-8) with the wallet; it expires in five minutes.',
  },
  expires_at: Timestamp,
});

export const TokenResponse = object({
  token: { type: 'string', description: 'A JWT (HS256) for the wallet: Authorization: Bearer <token>.' },
  expires_at: Timestamp,
});

// ---- groups, allow-list, invitations -----------------------------------------------------------

export const GroupCreatedResponse = object({
  group_config_pda: Identifier,
  owner_wallet: Identifier,
  base_mint: Identifier,
  default_limits: LimitsData,
  aggregator: Text,
});

export const WhitelistEntryResponse = object({
  whitelist_entry_pda: Identifier,
  address: Identifier,
  type: {
    type: 'integer',
    enum: [0, 1, 2],
    description: '0: an agent of the group; 1: an external recipient; 2: a protocol.',
  },
  label: NullableText,
  approved_amount: { type: ['string', 'null'], pattern: AmountText.pattern },
  ttl_expires_at: NullableTimestamp,
});

/** A type-1 entry's budget, in the base token: what confirmed spends used, open ones hold, and what is left. */
const NullableAmountText = { type: ['string', 'null'], pattern: AmountText.pattern } as const;

export const GroupResponse = object({
  group_config_pda: Identifier,
  owner_wallet: Identifier,
  base_mint: Identifier,
  default_limits: LimitsData,
  agents: {
    type: 'array',
    items: object({
      agent_wallet_pda: Identifier,
      label: NullableText,
      status: {
        type: 'string',
        enum: ['invited', 'active', 'revoked'],
        description:
          '`invited`: its code is not redeemed yet; `active`: registered, its key spends; `revoked`: final.',
      },
      limits: { ...LimitsData, description: 'Its limits now (the invitation’s until it registers).' },
    }),
  },
  whitelist: {
    type: 'array',
    items: {
      ...WhitelistEntryResponse,
      properties: {
        ...WhitelistEntryResponse.properties,
        budget_used: {
          ...NullableAmountText,
          description: 'Type 1: the approved amount confirmed spends used; null for other types.',
        },
        budget_reserved: {
          ...NullableAmountText,
          description: 'Type 1: what spends not settled yet hold of it; null for other types.',
        },
        budget_remaining: {
          ...NullableAmountText,
          description: 'Type 1: what a spend may still use (0 once voided); null for other types.',
        },
      },
      required: [...WhitelistEntryResponse.required, 'budget_used', 'budget_reserved', 'budget_remaining'],
    },
  },
});

export const GroupListResponse = object({
  groups: {
    type: 'array',
    description: 'The groups the signed-in wallet owns, oldest first (no one else’s).',
    items: object({
      group_config_pda: Identifier,
      created_at: Timestamp,
      base_mint: Identifier,
      default_limits: LimitsData,
      agents: { ...Count, description: 'Agents invited to it (registered or not, revoked included).' },
      whitelist_entries: { ...Count, description: 'Allow-list entries in force (its agents’ included).' },
    }),
  },
});

export const WhitelistRemovedResponse = object({ removed: Identifier });

export const InvitationResponse = object({
  invitation_code: { type: 'string', description: 'One-time; shown once.' },
  agent_wallet_pda: Identifier,
  expires_at: Timestamp,
  limits: LimitsData,
});

// ---- agents ----------------------------------------------------------------------------------

export const AgentLimitsResponse = object({ agent_wallet_pda: Identifier, limits: LimitsData });

const Revoked = { type: 'string', const: 'revoked' } as const;

export const RevokeResponse = object({ agent_wallet_pda: Identifier, is_active: Revoked });

export const RotateKeyResponse = object({
  agent_wallet_pda: Identifier,
  api_key: { type: 'string', description: 'The new key, shown once; the old one is refused from now on.' },
});

export const EmergencyWithdrawResponse = object({
  agent_wallet_pda: Identifier,
  is_active: Revoked,
  destination: Identifier,
  failed_intents: { ...Count, description: 'Accepted intents not yet submitted, failed by the stop.' },
  redeemed: {
    type: 'array',
    items: object({
      lending_program: Identifier,
      receipt_mint: Identifier,
      receipt_token: Text,
      receipt_amount: AmountOutput,
      mint: Identifier,
      token: Text,
      amount: AmountOutput,
      tx_sig: Text,
    }),
  },
  moved: {
    type: 'array',
    items: object({ mint: Identifier, token: Text, amount: AmountOutput, tx_sig: Text }),
  },
});

// ---- reconciliation --------------------------------------------------------------------------

export const ReconciliationResponse = object({
  group_id: Identifier,
  from: NullableTimestamp,
  to: NullableTimestamp,
  agents: Count,
  transactions: Count,
  discrepancies: {
    type: 'array',
    items: object(
      {
        kind: {
          type: 'string',
          enum: [
            'intent_not_on_chain',
            'intent_failed_on_chain',
            'amount_mismatch',
            'unexpected_movement',
            'unexplained_outflow',
            'balance_mismatch',
          ],
        },
        agent_id: Identifier,
        signature: Text,
        intent_id: Text,
        mint: Identifier,
        party: Text,
        expected: Text,
        actual: Text,
        amount: Text,
        difference: Text,
        message: Text,
      },
      ['signature', 'intent_id', 'mint', 'party', 'expected', 'actual', 'amount', 'difference'],
    ),
  },
});

// ---- fleet webhooks --------------------------------------------------------------------------

const AttemptLog = {
  type: 'array',
  items: object({
    attempt: { type: 'integer', minimum: 1 },
    at: Timestamp,
    outcome: { type: 'string', enum: ['delivered', 'failed', 'gone', 'cancelled'] },
    status_code: { type: ['integer', 'null'] },
    latency_ms: { type: 'number', minimum: 0 },
    error: NullableText,
  }),
} as const;

const DeliveryStatus = {
  type: 'string',
  enum: ['pending', 'delivered', 'failed', 'dead', 'cancelled'],
} as const;

export const WebhookSubscriptionView = object(
  {
    webhook_id: WebhookId,
    scope: { type: 'string', enum: ['agent', 'group'] },
    agent_wallet_pda: Identifier,
    group_config_pda: Identifier,
    url: Text,
    event_types: { type: 'array', items: { type: 'string', enum: EVENT_KINDS } },
    status: { type: 'string', enum: ['active', 'disabled', 'deleted'] },
    status_reason: Text,
    created_at: Timestamp,
    previous_secret_valid_until: Timestamp,
  },
  ['agent_wallet_pda', 'status_reason', 'previous_secret_valid_until'],
);

export const WebhookListResponse = object({ webhooks: { type: 'array', items: WebhookSubscriptionView } });

export const WebhookDeletedResponse = object({
  webhook_id: WebhookId,
  status: { type: 'string', const: 'deleted' },
});

export const DeliveriesResponse = object({
  webhook: WebhookSubscriptionView,
  deliveries: {
    type: 'array',
    items: object(
      {
        event_id: Text,
        event: { type: 'string', enum: EVENT_KINDS },
        status: DeliveryStatus,
        attempts: Count,
        created_at: Timestamp,
        next_attempt_at: Timestamp,
        payload: { description: 'The event as sent (docs/events.md).' },
        log: AttemptLog,
      },
      ['next_attempt_at'],
    ),
  },
});

export const RedeliveryResponse = object({
  webhook_id: WebhookId,
  redelivery: { type: 'string', const: 'requested' },
});

export const RotateSecretResponse = object({
  webhook_id: WebhookId,
  signing_secret: { type: 'string', description: 'The new secret, shown once.' },
  previous_secret_valid_until: Timestamp,
});

// ---- approvals -------------------------------------------------------------------------------

export const ApprovalPolicyResponse = object({
  group_config_pda: Identifier,
  threshold: { anyOf: [AmountText, { type: 'null' }] },
  approvers: { type: 'array', items: Identifier },
  quorum: Count,
  ttl_seconds: Count,
  new_recipients: { type: 'boolean' },
});

export const Approval = object({
  approval_id: Text,
  group_config_pda: Identifier,
  agent_wallet_pda: Identifier,
  action: { type: 'string', enum: ['transfer', 'swap', 'deposit', 'withdraw'] },
  amount: AmountText,
  mint: Identifier,
  value_in_base: AmountText,
  counterparty: Identifier,
  idempotency_key: NullableText,
  requested_at: Timestamp,
  expires_at: Timestamp,
  status: { type: 'string', enum: ['pending', 'approved', 'rejected', 'expired'] },
  quorum: Count,
  approved_by: { type: 'array', items: Identifier, description: 'The approvers who signed, in order.' },
  message: {
    type: 'string',
    description:
      'What an approver signs (UTF-8, ed25519): the group, agent, action, amount, mint, counterparty, idempotency key and expiry.',
  },
});

const Verdict = {
  type: 'string',
  description: '`accepted`, `held` (for approval), or the code the spend was (or would be) blocked with.',
} as const;

export const PolicyPreviewResponse = object({
  group_config_pda: Identifier,
  from: Timestamp,
  to: Timestamp,
  intents: { ...Count, description: 'Spend decisions of the window judged again.' },
  would_hold: { ...Count, description: 'How many of them the proposal would hold for approval.' },
  would_block: {
    type: 'object',
    additionalProperties: Count,
    description: 'How many it would block, by code.',
  },
  examples: {
    type: 'array',
    description: 'The first spends whose verdict the proposal changes.',
    items: object({
      intent_id: Text,
      agent_wallet_pda: Identifier,
      action: { type: 'string', enum: ['transfer', 'swap', 'deposit', 'withdraw'] },
      amount: AmountText,
      counterparty: Identifier,
      at: Timestamp,
      was: Verdict,
      would: Verdict,
    }),
  },
});

export const ApprovalListResponse = object({ approvals: { type: 'array', items: Approval } });

// ---- audit -----------------------------------------------------------------------------------

export const AuditorsResponse = object({
  group_config_pda: Identifier,
  wallet: Identifier,
  auditors: { type: 'array', items: Identifier, description: 'The group’s auditors now.' },
});

export const AuditorListResponse = object({
  group_config_pda: Identifier,
  auditors: {
    type: 'array',
    items: Identifier,
    description: 'The wallets granted read access, oldest first.',
  },
});

export const AuditEventView = object({
  position: { type: 'string', description: 'The event’s log position: a cursor to read on after it.' },
  event_id: Text,
  stream: Text,
  revision: Count,
  type: Text,
  data: { description: 'The event’s data as the log recorded it (sealed webhook secrets left out).' },
  metadata: object({ correlation_id: NullableText, causation_id: NullableText }),
  recorded_at: Timestamp,
  hash: {
    type: ['string', 'null'],
    pattern: '^[0-9a-f]{64}$',
    description: 'Its link in its stream’s hash chain (docs/audit.md); null for events older than the chain.',
  },
});

export const VerificationResponse = object({
  group: { type: ['string', 'null'], description: 'The group verified.' },
  events: Count,
  hashed: Count,
  unhashed: { ...Count, description: 'Events written before the chain existed: not verifiable, counted.' },
  streams: Count,
  broken: {
    type: 'array',
    description: 'What no longer holds, in the order found; empty when the log is intact.',
    items: object({
      reason: {
        type: 'string',
        enum: ['hash_mismatch', 'missing_event', 'hash_removed', 'digest_differs'],
      },
      event_id: NullableText,
      stream: NullableText,
      revision: { type: ['integer', 'null'], minimum: 0 },
      position: NullableText,
      message: Text,
    }),
  },
  digest: {
    type: 'string',
    pattern: '^[0-9a-f]{64}$',
    description: 'The running digest of the group’s events.',
  },
  checkpoints: {
    type: 'array',
    description: 'Keep them: pass them as ?expect= to a later verification.',
    items: object({ events: Count, position: Text, digest: { type: 'string', pattern: '^[0-9a-f]{64}$' } }),
  },
});

export const AuditEventsResponse = object({
  events: { type: 'array', items: AuditEventView },
  next_cursor: { type: 'string', description: 'Pass it as ?cursor= to read on.' },
  has_more: { type: 'boolean' },
});

export const IntentStoryResponse = object({
  intent_id: Text,
  group_config_pda: Identifier,
  agent_wallet_pda: Identifier,
  action: NullableText,
  decision: { type: 'string', enum: ['accepted', 'blocked'] },
  signature: NullableText,
  outcome: { type: ['string', 'null'], enum: ['confirmed', 'failed', null] },
  events: { type: 'array', items: AuditEventView },
  webhook_events: {
    type: 'array',
    items: object({ kind: { type: 'string', enum: EVENT_KINDS }, event_id: Text, log_event_id: Text }),
  },
  deliveries: {
    type: 'array',
    items: object({
      webhook_id: WebhookId,
      event_id: Text,
      event: { type: 'string', enum: EVENT_KINDS },
      status: DeliveryStatus,
      attempts: Count,
      created_at: Timestamp,
      updated_at: Timestamp,
      log: AttemptLog,
    }),
  },
});

// ---- reference data and the local chain --------------------------------------------------------

export const TokensResponse = object({
  tokens: {
    type: 'array',
    items: object({
      symbol: Text,
      mint: Identifier,
      decimals: { type: 'integer', minimum: 0, maximum: 255 },
    }),
  },
});

export const VenuesResponse = object({
  venues: {
    type: 'array',
    items: object({
      lending_program: Identifier,
      name: Text,
      mints: { type: 'array', items: Identifier, description: 'The underlying mints it takes.' },
    }),
  },
});

export const PoolsResponse = object({
  aggregator: { type: ['string', 'null'] },
  pools: {
    type: 'array',
    description: 'The local chain’s pools; empty with another aggregator.',
    items: object({
      pair: { type: 'string', description: 'Two symbols, e.g. USDC/SOL.' },
      fee_bps: Count,
      reserves: {
        type: 'array',
        items: object({ symbol: Text, mint: Identifier, vault: Identifier, reserve: AmountOutput }),
      },
    }),
  },
});

export const AirdropResponse = object({
  tx_signature: Text,
  to: Identifier,
  mint: Identifier,
  symbol: Text,
  amount: AmountOutput,
});

// ---- the console's reads: use of the limits now, spend over time ----------------------------

export const GroupUsageResponse = object({
  agents: {
    type: 'array',
    items: object({
      agent_wallet_pda: Identifier,
      spent_today: {
        ...AmountText,
        description: 'Spent (reserved or confirmed) in the last 24 hours, in the base token.',
      },
      hourly_count: { ...Count, description: 'Operations (reserved or confirmed) in the last 60 minutes.' },
      last_activity_at: {
        ...NullableTimestamp,
        description:
          'When its latest operation was decided, if within the last 25 hours (the window the limits keep).',
      },
      balances: {
        type: 'object',
        additionalProperties: AmountText,
        description: 'Its balance of each registry token (symbol: amount), from the agent views.',
      },
    }),
  },
});

const SpendSeries = {
  type: 'array',
  items: object({
    key: Identifier,
    total: AmountText,
    amounts: {
      type: 'array',
      items: AmountText,
      description: 'One amount a bucket, in the order of `buckets`.',
    },
  }),
} as const;

export const SpendResponse = object({
  window: { type: 'string', enum: ['24h', '7d'] },
  bucket_seconds: Count,
  buckets: { type: 'array', items: Timestamp, description: 'The start of each bucket, oldest first.' },
  agents: { ...SpendSeries, description: 'Confirmed spends by agent, in the base token.' },
  recipients: {
    ...SpendSeries,
    description: 'Confirmed spends by recipient (counterparty), in the base token.',
  },
});

/** Every answer of the operator surface, by its name in the operator OpenAPI document. */
export const OPERATOR_RESPONSE_SCHEMAS = {
  ChallengeResponse,
  TokenResponse,
  GroupCreatedResponse,
  GroupResponse,
  GroupListResponse,
  WhitelistEntryResponse,
  WhitelistRemovedResponse,
  InvitationResponse,
  AgentLimitsResponse,
  RevokeResponse,
  RotateKeyResponse,
  EmergencyWithdrawResponse,
  ReconciliationResponse,
  WebhookSubscriptionView,
  WebhookListResponse,
  WebhookDeletedResponse,
  DeliveriesResponse,
  RedeliveryResponse,
  RotateSecretResponse,
  AuditorsResponse,
  AuditorListResponse,
  ApprovalPolicyResponse,
  Approval,
  ApprovalListResponse,
  PolicyPreviewResponse,
  AuditEventView,
  AuditEventsResponse,
  VerificationResponse,
  IntentStoryResponse,
  TokensResponse,
  VenuesResponse,
  PoolsResponse,
  AirdropResponse,
  GroupUsageResponse,
  SpendResponse,
} as const;
