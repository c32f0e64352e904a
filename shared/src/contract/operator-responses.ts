/**
 * What the operator surface answers, as JSON Schemas: one constant per answer, the operator OpenAPI
 * document's components (operator-openapi.ts) and what the embedded service checks every operator
 * answer against when `checkResponses` is on. No answer carries a property these do not name.
 *
 * Amounts of groups, limits and allow-list entries are exact decimal text ("250", "0.5"); those of an
 * emergency withdrawal, a pool and an airdrop are JSON numbers written from their exact decimal.
 */
import type { JSONSchema } from 'json-schema-to-ts';
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

const LimitsData = {
  type: 'object',
  properties: { per_tx_limit: AmountText, daily_limit: AmountText, hourly_tx_cap: Count },
  required: ['per_tx_limit', 'daily_limit', 'hourly_tx_cap'],
  additionalProperties: false,
} as const;

const WebhookId = { type: 'string', pattern: '^wh_' } as const;

// ---- sign-in ---------------------------------------------------------------------------------

export const ChallengeResponse = {
  type: 'object',
  properties: {
    message: {
      type: 'string',
      description: 'Sign this text (UTF-8) with the wallet; it expires in five minutes.',
    },
    expires_at: Timestamp,
  },
  required: ['message', 'expires_at'],
  additionalProperties: false,
} as const satisfies JSONSchema;

export const TokenResponse = {
  type: 'object',
  properties: {
    token: { type: 'string', description: 'A JWT (HS256) for the wallet: Authorization: Bearer <token>.' },
    expires_at: Timestamp,
  },
  required: ['token', 'expires_at'],
  additionalProperties: false,
} as const satisfies JSONSchema;

// ---- groups, allow-list, invitations -----------------------------------------------------------

export const GroupCreatedResponse = {
  type: 'object',
  properties: {
    group_config_pda: Identifier,
    owner_wallet: Identifier,
    base_mint: Identifier,
    default_limits: LimitsData,
    aggregator: Text,
  },
  required: ['group_config_pda', 'owner_wallet', 'base_mint', 'default_limits', 'aggregator'],
  additionalProperties: false,
} as const satisfies JSONSchema;

export const WhitelistEntryResponse = {
  type: 'object',
  properties: {
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
  },
  required: ['whitelist_entry_pda', 'address', 'type', 'label', 'approved_amount', 'ttl_expires_at'],
  additionalProperties: false,
} as const satisfies JSONSchema;

/** A type-1 entry's budget, in the base token: what confirmed spends used, open ones hold, and what is left. */
const NullableAmountText = { type: ['string', 'null'], pattern: AmountText.pattern } as const;

export const GroupResponse = {
  type: 'object',
  properties: {
    group_config_pda: Identifier,
    owner_wallet: Identifier,
    base_mint: Identifier,
    default_limits: LimitsData,
    agents: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          agent_wallet_pda: Identifier,
          label: NullableText,
          status: {
            type: 'string',
            enum: ['invited', 'active', 'revoked'],
            description:
              '`invited`: its code is not redeemed yet; `active`: registered, its key spends; `revoked`: final.',
          },
          limits: { ...LimitsData, description: 'Its limits now (the invitation’s until it registers).' },
        },
        required: ['agent_wallet_pda', 'label', 'status', 'limits'],
        additionalProperties: false,
      },
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
  },
  required: ['group_config_pda', 'owner_wallet', 'base_mint', 'default_limits', 'agents', 'whitelist'],
  additionalProperties: false,
} as const satisfies JSONSchema;

export const GroupListResponse = {
  type: 'object',
  properties: {
    groups: {
      type: 'array',
      description: 'The groups the signed-in wallet owns, oldest first (no one else’s).',
      items: {
        type: 'object',
        properties: {
          group_config_pda: Identifier,
          created_at: Timestamp,
          base_mint: Identifier,
          default_limits: LimitsData,
          agents: { ...Count, description: 'Agents invited to it (registered or not, revoked included).' },
          whitelist_entries: { ...Count, description: 'Allow-list entries in force (its agents’ included).' },
        },
        required: [
          'group_config_pda',
          'created_at',
          'base_mint',
          'default_limits',
          'agents',
          'whitelist_entries',
        ],
        additionalProperties: false,
      },
    },
  },
  required: ['groups'],
  additionalProperties: false,
} as const satisfies JSONSchema;

export const WhitelistRemovedResponse = {
  type: 'object',
  properties: { removed: Identifier },
  required: ['removed'],
  additionalProperties: false,
} as const satisfies JSONSchema;

export const InvitationResponse = {
  type: 'object',
  properties: {
    invitation_code: { type: 'string', description: 'One-time; shown once.' },
    agent_wallet_pda: Identifier,
    expires_at: Timestamp,
    limits: LimitsData,
  },
  required: ['invitation_code', 'agent_wallet_pda', 'expires_at', 'limits'],
  additionalProperties: false,
} as const satisfies JSONSchema;

// ---- agents ----------------------------------------------------------------------------------

export const AgentLimitsResponse = {
  type: 'object',
  properties: { agent_wallet_pda: Identifier, limits: LimitsData },
  required: ['agent_wallet_pda', 'limits'],
  additionalProperties: false,
} as const satisfies JSONSchema;

const Revoked = { type: 'string', const: 'revoked' } as const;

export const RevokeResponse = {
  type: 'object',
  properties: { agent_wallet_pda: Identifier, is_active: Revoked },
  required: ['agent_wallet_pda', 'is_active'],
  additionalProperties: false,
} as const satisfies JSONSchema;

export const RotateKeyResponse = {
  type: 'object',
  properties: {
    agent_wallet_pda: Identifier,
    api_key: { type: 'string', description: 'The new key, shown once; the old one is refused from now on.' },
  },
  required: ['agent_wallet_pda', 'api_key'],
  additionalProperties: false,
} as const satisfies JSONSchema;

export const EmergencyWithdrawResponse = {
  type: 'object',
  properties: {
    agent_wallet_pda: Identifier,
    is_active: Revoked,
    destination: Identifier,
    failed_intents: { ...Count, description: 'Accepted intents not yet submitted, failed by the stop.' },
    redeemed: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          lending_program: Identifier,
          receipt_mint: Identifier,
          receipt_token: Text,
          receipt_amount: AmountOutput,
          mint: Identifier,
          token: Text,
          amount: AmountOutput,
          tx_sig: Text,
        },
        required: [
          'lending_program',
          'receipt_mint',
          'receipt_token',
          'receipt_amount',
          'mint',
          'token',
          'amount',
          'tx_sig',
        ],
        additionalProperties: false,
      },
    },
    moved: {
      type: 'array',
      items: {
        type: 'object',
        properties: { mint: Identifier, token: Text, amount: AmountOutput, tx_sig: Text },
        required: ['mint', 'token', 'amount', 'tx_sig'],
        additionalProperties: false,
      },
    },
  },
  required: ['agent_wallet_pda', 'is_active', 'destination', 'failed_intents', 'redeemed', 'moved'],
  additionalProperties: false,
} as const satisfies JSONSchema;

// ---- reconciliation --------------------------------------------------------------------------

export const ReconciliationResponse = {
  type: 'object',
  properties: {
    group_id: Identifier,
    from: NullableTimestamp,
    to: NullableTimestamp,
    agents: Count,
    transactions: Count,
    discrepancies: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
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
        required: ['kind', 'agent_id', 'message'],
        additionalProperties: false,
      },
    },
  },
  required: ['group_id', 'from', 'to', 'agents', 'transactions', 'discrepancies'],
  additionalProperties: false,
} as const satisfies JSONSchema;

// ---- fleet webhooks --------------------------------------------------------------------------

const AttemptLog = {
  type: 'array',
  items: {
    type: 'object',
    properties: {
      attempt: { type: 'integer', minimum: 1 },
      at: Timestamp,
      outcome: { type: 'string', enum: ['delivered', 'failed', 'gone', 'cancelled'] },
      status_code: { type: ['integer', 'null'] },
      latency_ms: { type: 'number', minimum: 0 },
      error: NullableText,
    },
    required: ['attempt', 'at', 'outcome', 'status_code', 'latency_ms', 'error'],
    additionalProperties: false,
  },
} as const;

const DeliveryStatus = {
  type: 'string',
  enum: ['pending', 'delivered', 'failed', 'dead', 'cancelled'],
} as const;

export const WebhookSubscriptionView = {
  type: 'object',
  properties: {
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
  required: ['webhook_id', 'scope', 'group_config_pda', 'url', 'event_types', 'status', 'created_at'],
  additionalProperties: false,
} as const satisfies JSONSchema;

export const WebhookListResponse = {
  type: 'object',
  properties: { webhooks: { type: 'array', items: WebhookSubscriptionView } },
  required: ['webhooks'],
  additionalProperties: false,
} as const satisfies JSONSchema;

export const WebhookDeletedResponse = {
  type: 'object',
  properties: { webhook_id: WebhookId, status: { type: 'string', const: 'deleted' } },
  required: ['webhook_id', 'status'],
  additionalProperties: false,
} as const satisfies JSONSchema;

export const DeliveriesResponse = {
  type: 'object',
  properties: {
    webhook: WebhookSubscriptionView,
    deliveries: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          event_id: Text,
          event: { type: 'string', enum: EVENT_KINDS },
          status: DeliveryStatus,
          attempts: Count,
          created_at: Timestamp,
          next_attempt_at: Timestamp,
          payload: { description: 'The event as sent (docs/events.md).' },
          log: AttemptLog,
        },
        required: ['event_id', 'event', 'status', 'attempts', 'created_at', 'payload', 'log'],
        additionalProperties: false,
      },
    },
  },
  required: ['webhook', 'deliveries'],
  additionalProperties: false,
} as const satisfies JSONSchema;

export const RedeliveryResponse = {
  type: 'object',
  properties: { webhook_id: WebhookId, redelivery: { type: 'string', const: 'requested' } },
  required: ['webhook_id', 'redelivery'],
  additionalProperties: false,
} as const satisfies JSONSchema;

export const RotateSecretResponse = {
  type: 'object',
  properties: {
    webhook_id: WebhookId,
    signing_secret: { type: 'string', description: 'The new secret, shown once.' },
    previous_secret_valid_until: Timestamp,
  },
  required: ['webhook_id', 'signing_secret', 'previous_secret_valid_until'],
  additionalProperties: false,
} as const satisfies JSONSchema;

// ---- audit -----------------------------------------------------------------------------------

export const AuditorsResponse = {
  type: 'object',
  properties: {
    group_config_pda: Identifier,
    wallet: Identifier,
    auditors: { type: 'array', items: Identifier, description: 'The group’s auditors now.' },
  },
  required: ['group_config_pda', 'wallet', 'auditors'],
  additionalProperties: false,
} as const satisfies JSONSchema;

export const AuditEventView = {
  type: 'object',
  properties: {
    position: { type: 'string', description: 'The event’s log position: a cursor to read on after it.' },
    event_id: Text,
    stream: Text,
    revision: Count,
    type: Text,
    data: { description: 'The event’s data as the log recorded it (sealed webhook secrets left out).' },
    metadata: {
      type: 'object',
      properties: { correlation_id: NullableText, causation_id: NullableText },
      required: ['correlation_id', 'causation_id'],
      additionalProperties: false,
    },
    recorded_at: Timestamp,
    hash: {
      type: ['string', 'null'],
      pattern: '^[0-9a-f]{64}$',
      description:
        'Its link in its stream’s hash chain (docs/audit.md); null for events older than the chain.',
    },
  },
  required: ['position', 'event_id', 'stream', 'revision', 'type', 'data', 'metadata', 'recorded_at', 'hash'],
  additionalProperties: false,
} as const satisfies JSONSchema;

export const VerificationResponse = {
  type: 'object',
  properties: {
    group: { type: ['string', 'null'], description: 'The group verified.' },
    events: Count,
    hashed: Count,
    unhashed: { ...Count, description: 'Events written before the chain existed: not verifiable, counted.' },
    streams: Count,
    broken: {
      type: 'array',
      description: 'What no longer holds, in the order found; empty when the log is intact.',
      items: {
        type: 'object',
        properties: {
          reason: {
            type: 'string',
            enum: ['hash_mismatch', 'missing_event', 'hash_removed', 'digest_differs'],
          },
          event_id: NullableText,
          stream: NullableText,
          revision: { type: ['integer', 'null'], minimum: 0 },
          position: NullableText,
          message: Text,
        },
        required: ['reason', 'event_id', 'stream', 'revision', 'position', 'message'],
        additionalProperties: false,
      },
    },
    digest: {
      type: 'string',
      pattern: '^[0-9a-f]{64}$',
      description: 'The running digest of the group’s events.',
    },
    checkpoints: {
      type: 'array',
      description: 'Keep them: pass them as ?expect= to a later verification.',
      items: {
        type: 'object',
        properties: { events: Count, position: Text, digest: { type: 'string', pattern: '^[0-9a-f]{64}$' } },
        required: ['events', 'position', 'digest'],
        additionalProperties: false,
      },
    },
  },
  required: ['group', 'events', 'hashed', 'unhashed', 'streams', 'broken', 'digest', 'checkpoints'],
  additionalProperties: false,
} as const satisfies JSONSchema;

export const AuditEventsResponse = {
  type: 'object',
  properties: {
    events: { type: 'array', items: AuditEventView },
    next_cursor: { type: 'string', description: 'Pass it as ?cursor= to read on.' },
    has_more: { type: 'boolean' },
  },
  required: ['events', 'next_cursor', 'has_more'],
  additionalProperties: false,
} as const satisfies JSONSchema;

export const IntentStoryResponse = {
  type: 'object',
  properties: {
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
      items: {
        type: 'object',
        properties: { kind: { type: 'string', enum: EVENT_KINDS }, event_id: Text, log_event_id: Text },
        required: ['kind', 'event_id', 'log_event_id'],
        additionalProperties: false,
      },
    },
    deliveries: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          webhook_id: WebhookId,
          event_id: Text,
          event: { type: 'string', enum: EVENT_KINDS },
          status: DeliveryStatus,
          attempts: Count,
          created_at: Timestamp,
          updated_at: Timestamp,
          log: AttemptLog,
        },
        required: [
          'webhook_id',
          'event_id',
          'event',
          'status',
          'attempts',
          'created_at',
          'updated_at',
          'log',
        ],
        additionalProperties: false,
      },
    },
  },
  required: [
    'intent_id',
    'group_config_pda',
    'agent_wallet_pda',
    'action',
    'decision',
    'signature',
    'outcome',
    'events',
    'webhook_events',
    'deliveries',
  ],
  additionalProperties: false,
} as const satisfies JSONSchema;

// ---- reference data and the local chain --------------------------------------------------------

export const TokensResponse = {
  type: 'object',
  properties: {
    tokens: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          symbol: Text,
          mint: Identifier,
          decimals: { type: 'integer', minimum: 0, maximum: 255 },
        },
        required: ['symbol', 'mint', 'decimals'],
        additionalProperties: false,
      },
    },
  },
  required: ['tokens'],
  additionalProperties: false,
} as const satisfies JSONSchema;

export const VenuesResponse = {
  type: 'object',
  properties: {
    venues: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          lending_program: Identifier,
          name: Text,
          mints: { type: 'array', items: Identifier, description: 'The underlying mints it takes.' },
        },
        required: ['lending_program', 'name', 'mints'],
        additionalProperties: false,
      },
    },
  },
  required: ['venues'],
  additionalProperties: false,
} as const satisfies JSONSchema;

export const PoolsResponse = {
  type: 'object',
  properties: {
    aggregator: { type: ['string', 'null'] },
    pools: {
      type: 'array',
      description: 'The local chain’s pools; empty with another aggregator.',
      items: {
        type: 'object',
        properties: {
          pair: { type: 'string', description: 'Two symbols, e.g. USDC/SOL.' },
          fee_bps: Count,
          reserves: {
            type: 'array',
            items: {
              type: 'object',
              properties: { symbol: Text, mint: Identifier, vault: Identifier, reserve: AmountOutput },
              required: ['symbol', 'mint', 'vault', 'reserve'],
              additionalProperties: false,
            },
          },
        },
        required: ['pair', 'fee_bps', 'reserves'],
        additionalProperties: false,
      },
    },
  },
  required: ['aggregator', 'pools'],
  additionalProperties: false,
} as const satisfies JSONSchema;

export const AirdropResponse = {
  type: 'object',
  properties: { tx_signature: Text, to: Identifier, mint: Identifier, symbol: Text, amount: AmountOutput },
  required: ['tx_signature', 'to', 'mint', 'symbol', 'amount'],
  additionalProperties: false,
} as const satisfies JSONSchema;

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
  AuditEventView,
  AuditEventsResponse,
  VerificationResponse,
  IntentStoryResponse,
  TokensResponse,
  VenuesResponse,
  PoolsResponse,
  AirdropResponse,
} as const;
