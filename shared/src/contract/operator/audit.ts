/**
 * The audit (docs/audit.md): the group's events in log order (a page after a cursor, or NDJSON), the
 * verification of their hash chain, the story of one intent, and the reconciliation of the log with
 * the chain. For the owner and the group's auditors (reconciliation: the owner).
 */
import { object } from '../build';
import { EVENT_KINDS } from '../../events/catalogue';
import { contractTag } from '../openapi';
import { Count, Identifier, Text, Timestamp, type Shape } from '../schemas';
import { WebhookId } from '../agent/webhooks';
import { NullableText, NullableTimestamp, OWNER, READERS } from './common';
import { AttemptLogSchema, DeliveryStatusSchema } from './webhooks';

const IntentId = {
  type: 'string',
  maxLength: 36,
  pattern: '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$',
} as const;

/** The window of a reconciliation (docs/audit.md): both ends inclusive, either may be absent. */
export const ReconciliationQuery = object(
  {
    from: { type: 'string', format: 'date-time', maxLength: 64 },
    to: { type: 'string', format: 'date-time', maxLength: 64 },
  },
  ['from', 'to'],
);

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
      maxLength: 2000,
      pattern: '^[a-z][a-z0-9_]*(\\.[a-z0-9_]+)+(,[a-z][a-z0-9_]*(\\.[a-z0-9_]+)+)*$',
      description:
        'One event type of the log (`intent.blocked`, `x402.payment_settled`), or several separated by commas.',
    },
    cursor: { type: 'string', minLength: 1, maxLength: 100, pattern: '^[A-Za-z0-9_-]+$' },
    limit: { type: 'integer', format: 'int32', minimum: 1, maximum: MAX_AUDIT_PAGE, default: 100 },
  },
  ['from', 'to', 'agent', 'type', 'cursor', 'limit'],
);

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

export const AuditEventsResponse = object({
  events: { type: 'array', items: AuditEventView },
  next_cursor: { type: 'string', description: 'Pass it as ?cursor= to read on.' },
  has_more: { type: 'boolean' },
});

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
  governance: object({
    checked: { ...Count, description: 'Proposals’ executions checked.' },
    invalid: {
      type: 'array',
      description:
        'Each widening change that does not carry a quorum of valid admin signatures under the governance policy then in force; empty when every one does.',
      items: object({
        proposal_id: NullableText,
        event_id: Text,
        type: Text,
        reason: {
          type: 'string',
          enum: ['unknown_proposal', 'message_differs', 'no_quorum', 'not_executed', 'no_proposal'],
        },
        message: Text,
      }),
    },
  }),
  checkpoints: {
    type: 'array',
    description: 'Keep them: pass them as ?expect= to a later verification.',
    items: object({ events: Count, position: Text, digest: { type: 'string', pattern: '^[0-9a-f]{64}$' } }),
  },
});

export const IntentStoryResponse = object({
  intent_id: Text,
  group_config_pda: Identifier,
  agent_wallet_pda: Identifier,
  action: NullableText,
  decision: { type: 'string', enum: ['accepted', 'blocked'] },
  signature: NullableText,
  outcome: { type: ['string', 'null'], enum: ['confirmed', 'failed', null] },
  sol_fee: {
    anyOf: [
      object({
        lamports: {
          type: 'string',
          pattern: '^[0-9]+$',
          description: 'Lamports, decimal text: 5,000 a signature plus the compute-unit price × limit.',
        },
        payer: { ...Identifier, description: 'The fee payer: the account the chain took the fee from.' },
      }),
      { type: 'null' },
    ],
    description:
      'The SOL fee the service’s transaction paid on confirmation, and by whom; null before a confirmation, or for one recorded before fees were.',
  },
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
      status: DeliveryStatusSchema,
      attempts: Count,
      created_at: Timestamp,
      updated_at: Timestamp,
      log: AttemptLogSchema,
    }),
  },
});

export const OPERATOR_AUDIT = contractTag({
  name: 'audit',
  description:
    'The audit query, the verification of the log, the story of one intent, reconciliation with the chain.',
  schemas: {
    ReconciliationQuery,
    ReconciliationResponse,
    AuditEventsQuery,
    AuditEventView,
    AuditEventsResponse,
    VerificationQuery,
    VerificationResponse,
    IntentStoryResponse,
  },
  parameters: { intent: IntentId },
  operations: {
    reconcileGroup: {
      method: 'get',
      path: '/orchestrator/groups/{group}/reconciliation',
      tag: 'audit',
      operationId: 'reconcileGroup',
      summary:
        'Compare the log with the chain for every agent of the group: the discrepancies, none when clean.',
      description:
        'A window (from, to; both inclusive) limits the intents checked; balances are always compared as they are now (docs/audit.md).',
      query: 'ReconciliationQuery',
      response: 'ReconciliationResponse',
      errors: OWNER,
    },
    auditEvents: {
      method: 'get',
      path: '/audit/groups/{group}/events',
      tag: 'audit',
      operationId: 'auditEvents',
      summary: 'The group’s events in log order, filtered, a page after a cursor; or all of them as NDJSON.',
      description:
        'For the owner or an auditor of the group. With Accept: application/x-ndjson the answer streams one event (an AuditEvent) a line, from the cursor to the log’s head when the read began; cut short if the service stops meanwhile (read on with the last line’s `position` as the cursor).',
      query: 'AuditEventsQuery',
      response: 'AuditEventsResponse',
      alternatives: {
        'application/x-ndjson': {
          schema: { type: 'string', description: 'One AuditEvent (JSON) a line.' },
        },
      },
      security: READERS,
      errors: OWNER,
    },
    verifyGroupLog: {
      method: 'get',
      path: '/audit/groups/{group}/verification',
      tag: 'audit',
      operationId: 'verifyGroupLog',
      summary:
        'Check the hash chain of the group’s events: what no longer holds, the running digest, checkpoints.',
      description:
        'For the owner or an auditor of the group. Checkpoints kept from an earlier verification (?expect=) must give the same digest (docs/audit.md).',
      query: 'VerificationQuery',
      response: 'VerificationResponse',
      security: READERS,
      errors: OWNER,
    },
    intentStory: {
      method: 'get',
      path: '/audit/intents/{intent}',
      tag: 'audit',
      operationId: 'intentStory',
      summary:
        'Everything about one intent: the decision, budget events, signature, outcome, webhook deliveries.',
      description: 'For the owner or an auditor of the intent’s group.',
      response: 'IntentStoryResponse',
      security: READERS,
      errors: OWNER,
    },
  },
});

export type ReconciliationQuery = Shape<typeof ReconciliationQuery>;
export type AuditEventsQuery = Shape<typeof AuditEventsQuery>;
export type VerificationQuery = Shape<typeof VerificationQuery>;
