/**
 * What a group's agents do, as the console shows it: each agent's use of its limits now with its
 * balances, confirmed spends over time, and the group's events as they happen (server-sent events
 * from the log, resumable by Last-Event-ID).
 */
import { object } from '../build';
import { contractTag } from '../openapi';
import { Count, Identifier, Timestamp, type Shape } from '../schemas';
import { AuditEventView, AuditEventsResponse } from './audit';
import { AmountText, NullableTimestamp, OWNER } from './common';

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

export const OPERATOR_ACTIVITY = contractTag({
  name: 'activity',
  description:
    'What a group’s agents do, for the console: each one’s use of its limits, spend over time, the events as they happen.',
  schemas: {
    SpendQuery,
    GroupEventsQuery,
    GroupUsageResponse,
    SpendResponse,
    AuditEventsResponse,
    AuditEventView,
  },
  operations: {
    groupUsage: {
      method: 'get',
      path: '/orchestrator/groups/{group}/usage',
      tag: 'activity',
      operationId: 'groupUsage',
      summary:
        'Each agent’s use of its limits now (spent today, operations this hour), balances, last activity.',
      description:
        'For each agent of the group: what it spent (reserved or confirmed) in the last 24 hours, how many operations it made in the last 60 minutes, its last activity and its balances of each registry token. Only the group’s owner: another wallet’s group is `403 forbidden`, an unknown one `404 not_found`.',
      response: 'GroupUsageResponse',
      errors: OWNER,
    },
    groupSpend: {
      method: 'get',
      path: '/orchestrator/groups/{group}/spend',
      tag: 'activity',
      operationId: 'groupSpend',
      summary: 'Confirmed spends over the last 24 hours or 7 days, by agent and by recipient, from the log.',
      description:
        'The group’s confirmed spends over `window` (the last 24 hours, or 7 days), in buckets (hourly over 24 hours, 6-hourly over 7 days), by agent and by recipient, read from the log; refusals are not counted. Only the group’s owner: another wallet’s group is `403 forbidden`, an unknown one `404 not_found`.',
      query: 'SpendQuery',
      response: 'SpendResponse',
      errors: OWNER,
    },
    groupEvents: {
      method: 'get',
      path: '/orchestrator/groups/{group}/events',
      tag: 'activity',
      operationId: 'groupEvents',
      query: 'GroupEventsQuery',
      summary:
        'The group’s events as they happen: server-sent events from the log, resumable by Last-Event-ID.',
      description:
        'With Accept: text/event-stream: every event of the group after the one Last-Event-ID names (from the group’s first when absent; recorded since `since` when given), then each new one as it is logged, until the client goes, the operator’s token expires or the service stops. Each message: `id` the event’s position (a cursor), `event` its type, `data` an AuditEventView. A client that reconnects with the last id it saw misses nothing. Otherwise, JSON: one page of events after Last-Event-ID, as the audit query answers.',
      response: 'AuditEventsResponse',
      alternatives: {
        'text/event-stream': {
          schema: {
            type: 'string',
            description: 'Server-sent events; each data line one AuditEventView (JSON).',
          },
        },
      },
      errors: OWNER,
    },
  },
});

export type SpendQuery = Shape<typeof SpendQuery>;
export type GroupEventsQuery = Shape<typeof GroupEventsQuery>;
