/**
 * What the audit query shows of a group, decided without the store: which streams belong to the
 * group as its stream names its agents and entries, the cursor's text, and how an event is shown
 * (sealed webhook secrets left out), and the type filter: every type the group's log can hold, and
 * every webhook kind, is a filter the query takes, and selects exactly its events.
 */
import { GroupScope, auditEventOf, decodeCursor, encodeCursor, matchesFilter } from './audit';
import type { RecordedEvent } from '../event-store/port';
import { DOMAIN_EVENT_TYPES } from '../domain/events';
import { EVENT_KINDS } from '../events/catalogue';
import { WEBHOOK_EVENT_TYPES } from './webhooks/subscriptions';
import { validate } from '../contract/validator';
import { thrownBy } from '@tokenops/testing/errors';

let n = 0n;
const recorded = (stream: string, type: string, data: unknown): RecordedEvent => {
  n += 1n;
  return {
    id: `id-${n}`,
    stream,
    type,
    revision: 0n,
    position: { commit: 7n, prepare: n },
    data,
    metadata: { timestamp: '2026-11-22T00:00:00.000Z' },
  };
};

describe('the scope of a group', () => {
  const scope = new GroupScope('G', { commit: 7n, prepare: 1n });
  scope.observe(recorded('group-G', 'agent.invited', { group_id: 'G', agent_id: 'A' }));
  scope.observe(recorded('group-G', 'whitelist.entry_added', { group_id: 'G', entry_id: 'E', type: 1 }));
  // An invitation in another group's stream names no agent of this one.
  scope.observe(recorded('group-H', 'agent.invited', { group_id: 'H', agent_id: 'B' }));

  it.each([
    ['group-G', true],
    ['webhooks-group-G', true],
    ['agent-A', true],
    ['payments-A', true],
    ['webhooks-agent-A', true],
    ['budget-E', true],
    ['agent-B', false],
    ['group-H', false],
    ['budget-F', false],
    ['wallet-A', false],
    ['idem-A-abc', false],
    ['operator-signin-x', false],
    ['webhooks-group-H', false],
  ])('%s belongs to it: %s', (stream, expected) => {
    expect(scope.includes(stream)).toBe(expected);
  });
});

describe('the cursor', () => {
  it('gives back the position it was made of', () => {
    const p = { commit: 123456789012345n, prepare: 42n };
    expect(decodeCursor(encodeCursor(p))).toEqual(p);
  });

  it.each([
    '',
    'zz',
    'MTox==',
    Buffer.from('01:1').toString('base64url'),
    Buffer.from('1:2:3').toString('base64url'),
    Buffer.from('-1:2').toString('base64url'),
  ])('refuses %j: validation_error on /cursor', (text) => {
    const err = thrownBy(() => decodeCursor(text));
    expect(err.code).toBe('validation_error');
    expect(err.details?.map((d) => d.path)).toEqual(['/cursor']);
  });
});

describe('an event as shown', () => {
  it('leaves sealed webhook secrets out and keeps the rest', () => {
    const e = recorded('webhooks-group-G', 'webhook.registered', {
      webhook_id: 'wh_1',
      url: 'https://x.test/',
      sealed_secret: 'sealed!',
      at: 1,
    });
    expect(auditEventOf(e)).toEqual({
      position: encodeCursor(e.position),
      event_id: e.id,
      stream: 'webhooks-group-G',
      revision: 0,
      type: 'webhook.registered',
      data: { webhook_id: 'wh_1', url: 'https://x.test/', at: 1 },
      metadata: { correlation_id: null, causation_id: null },
      recorded_at: '2026-11-22T00:00:00.000Z',
      hash: null,
    });
  });
});

describe('the type filter', () => {
  /** Every type the group's streams can hold (its own, its agents', budgets', payments', approvals', webhooks'). */
  const LOG_TYPES: readonly string[] = [...DOMAIN_EVENT_TYPES, ...WEBHOOK_EVENT_TYPES];
  /** The query's `type` parameter as the route reads it: validated, then split at the commas. */
  const typesOf = (type: string): string[] =>
    validate<{ type: string }>('AuditEventsQuery', { type }).type.split(',');
  // One event of each type, in a stream of the group.
  const log = LOG_TYPES.map((type) => recorded('agent-A', type, { agent_id: 'A' }));

  it('walks every type of the log (domain events and subscriptions), digits included', () => {
    expect(LOG_TYPES).toEqual(expect.arrayContaining(['x402.payment_settled', 'webhook.registered']));
    expect(new Set(LOG_TYPES).size).toBe(LOG_TYPES.length);
  });

  it.each(LOG_TYPES)('type=%s is accepted and selects exactly the events of that type', (type) => {
    const selected = log.filter((e) => matchesFilter(e, { types: typesOf(type) }));
    expect(selected.map((e) => e.type)).toEqual([type]);
  });

  it.each(EVENT_KINDS)('the webhook kind %s is accepted as a filter', (kind) => {
    // A kind named as its log event (x402.payment_settled) selects those; the others (transfer.confirmed,
    // from intent.confirmed) name no log type, and select nothing.
    const selected = log.filter((e) => matchesFilter(e, { types: typesOf(kind) }));
    expect(selected.map((e) => e.type)).toEqual(LOG_TYPES.includes(kind) ? [kind] : []);
  });

  it('takes every type of the log at once, and selects them all', () => {
    const all = LOG_TYPES.join(',');
    expect(log.filter((e) => matchesFilter(e, { types: typesOf(all) }))).toEqual(log);
  });

  it.each([
    'x402',
    'X402.payment_settled',
    '1x.a',
    'intent.',
    'intent..accepted',
    'intent.accepted,',
    'a.b c',
  ])('refuses %j: validation_error on /type', (type) => {
    const err = thrownBy(() => typesOf(type));
    expect(err.code).toBe('validation_error');
    expect(err.details?.map((d) => d.path)).toEqual(['/type']);
  });
});
