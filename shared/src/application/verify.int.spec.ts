/**
 * Tamper evidence on PostgreSQL: a log written through the event store, then changed behind its back
 * with SQL, as someone with access to the database could. Each verification names exactly what was
 * changed, and nothing else.
 */
import { Pool } from 'pg';
import { PostgresEventStore } from '../event-store/postgres';
import { contentHash, linkHash } from '../event-store/hash-chain';
import type { EventStore, RecordedEvent } from '../event-store/port';
import { streams } from '../domain/events';
import { serverSql } from '../sql/sql';
import { DATABASE_URL, dropSchema, uniqueName } from '@tokenops/testing/servers';
import { settled } from '@tokenops/testing/log';
import { verifyLog } from './verify';

const schemas: string[] = [];
let admin: Pool;
beforeAll(() => {
  admin = new Pool({ connectionString: DATABASE_URL, max: 2 });
});
afterAll(async () => {
  await admin.end();
  for (const schema of schemas) await dropSchema(schema);
});

/** A log of two groups: each with an agent making transfers and an allow-list entry's budget. */
async function world(): Promise<{ store: EventStore; schema: string; log: RecordedEvent[] }> {
  const schema = uniqueName('verify');
  schemas.push(schema);
  const sql = await serverSql({ connectionString: DATABASE_URL, schema });
  const store = await PostgresEventStore.open(sql);
  for (const g of ['g1', 'g2']) {
    await store.append(
      streams.group(g),
      [
        { type: 'group.created', data: { group_id: g } },
        { type: 'agent.invited', data: { agent_id: `${g}-agent` } },
        { type: 'whitelist.entry_added', data: { entry_id: `${g}-entry`, budget: '100.5' } },
      ],
      'no_stream',
    );
  }
  for (let i = 0; i < 5; i++) {
    for (const g of ['g1', 'g2']) {
      await store.append(
        streams.agent(`${g}-agent`),
        [
          { type: 'intent.accepted', data: { intent_id: `${g}-${i}`, amount: `${i + 1}.25`, note: 'é ✓' } },
          { type: 'intent.confirmed', data: { intent_id: `${g}-${i}`, signature: `sig-${g}-${i}` } },
        ],
        'any',
      );
      await store.append(streams.budget(`${g}-entry`), [{ type: 'budget.consumed', data: { n: i } }], 'any');
    }
  }
  await settled(sql);
  return { store, schema, log: await store.readAll({ maxCount: 1_000 }) };
}

const find = (log: RecordedEvent[], stream: string, revision: number) =>
  log.find((e) => e.stream === stream && e.revision === BigInt(revision))!;

describe('audit verify on PostgreSQL', () => {
  it('finds an intact log intact, the whole log and one group', async () => {
    const { store, log } = await world();
    const all = await verifyLog(store);
    expect(all).toMatchObject({
      group: null,
      events: log.length,
      hashed: log.length,
      unhashed: 0,
      broken: [],
    });
    const g1 = await verifyLog(store, { groupId: 'g1' });
    expect(g1).toMatchObject({ group: 'g1', events: log.length / 2, streams: 3, broken: [] });
    expect(g1.checkpoints.at(-1)).toEqual({
      events: log.length / 2,
      position: expect.any(String),
      digest: g1.digest,
    });
    await store.close();
  });

  it('names exactly the event whose data was edited in the table', async () => {
    const { store, schema, log } = await world();
    const edited = find(log, streams.agent('g1-agent'), 4);
    await admin.query(
      `UPDATE ${schema}.es_events SET data = jsonb_set(data, '{amount}', '"9999"') WHERE event_id = $1`,
      [edited.id],
    );
    const report = await verifyLog(store);
    expect(report.broken).toEqual([
      expect.objectContaining({
        reason: 'hash_mismatch',
        event_id: edited.id,
        stream: edited.stream,
        revision: 4,
      }),
    ]);
    // The other group's verification is unaffected.
    expect((await verifyLog(store, { groupId: 'g2' })).broken).toEqual([]);
    await store.close();
  });

  it('names an edit that rewrote the link too, at the next event', async () => {
    const { store, schema, log } = await world();
    const edited = find(log, streams.agent('g1-agent'), 2);
    const next = find(log, streams.agent('g1-agent'), 3);
    // A careful forger recomputes the edited event's own link; the next event's link still names the old one.
    const before = find(log, streams.agent('g1-agent'), 1);
    const forged = { ...edited, data: { ...(edited.data as object), amount: '0.01' } };
    const link = linkHash(Buffer.from(before.hash!, 'hex'), contentHash(forged));
    await admin.query(`UPDATE ${schema}.es_events SET data = $2::jsonb, hash = $3 WHERE event_id = $1`, [
      edited.id,
      JSON.stringify(forged.data),
      link,
    ]);
    const report = await verifyLog(store);
    expect(report.broken.map((b) => [b.reason, b.event_id])).toEqual([['hash_mismatch', next.id]]);
    await store.close();
  });

  it('names a removed event by the gap it leaves, and an erased link', async () => {
    const { store, schema, log } = await world();
    const removed = find(log, streams.budget('g1-entry'), 1);
    const after = find(log, streams.budget('g1-entry'), 2);
    await admin.query(`DELETE FROM ${schema}.es_events WHERE event_id = $1`, [removed.id]);
    const erased = find(log, streams.agent('g2-agent'), 9);
    await admin.query(`UPDATE ${schema}.es_events SET hash = NULL WHERE event_id = $1`, [erased.id]);
    const report = await verifyLog(store);
    expect(report.broken.map((b) => [b.reason, b.event_id]).sort()).toEqual(
      [
        ['hash_removed', erased.id],
        ['missing_event', after.id],
      ].sort(),
    );
    expect(report.broken.find((b) => b.reason === 'missing_event')!.message).toContain('revision 1');
    await store.close();
  });

  it("shows, against an earlier run's checkpoints, a stream's last event removed (which no chain can show)", async () => {
    const { store, schema, log } = await world();
    const earlier = await verifyLog(store, { groupId: 'g1', checkpointEvery: 4 });
    expect(earlier.checkpoints.map((c) => c.events)).toEqual([4, 8, 12, 16, 18]);
    // Verified against itself, the log still holds.
    expect((await verifyLog(store, { groupId: 'g1', expect: earlier.checkpoints })).broken).toEqual([]);
    const last = find(log, streams.budget('g1-entry'), 4);
    await admin.query(`DELETE FROM ${schema}.es_events WHERE event_id = $1`, [last.id]);
    const chainsOnly = await verifyLog(store, { groupId: 'g1' });
    expect(chainsOnly.broken).toEqual([]);
    const later = await verifyLog(store, { groupId: 'g1', expect: earlier.checkpoints });
    expect(later.broken.map((b) => b.reason)).toEqual(['digest_differs']);
    expect(later.broken[0]!.message).toContain('events were removed');
    await store.close();
  });

  it('verifies an old log from the first hashed event of each stream', async () => {
    const schema = uniqueName('verify_old');
    schemas.push(schema);
    let store = await PostgresEventStore.open(await serverSql({ connectionString: DATABASE_URL, schema }));
    await store.close();
    // Rows as a version without the chain wrote them: no link.
    await admin.query(
      `INSERT INTO ${schema}.es_streams VALUES ('agent-old', 1);
       INSERT INTO ${schema}.es_events (stream_name, stream_revision, event_id, event_type, data, metadata)
       VALUES ('agent-old', 0, gen_random_uuid(), 'agent.registered', '{}', '{"timestamp":"2026-01-01T00:00:00.000Z"}'),
              ('agent-old', 1, gen_random_uuid(), 'intent.accepted', '{"amount":"1"}', '{"timestamp":"2026-01-01T00:00:01.000Z"}')`,
    );
    const sql = await serverSql({ connectionString: DATABASE_URL, schema });
    store = await PostgresEventStore.open(sql);
    await store.append('agent-old', [{ type: 'intent.confirmed', data: { n: 1 } }], 1n);
    await store.append('agent-old', [{ type: 'intent.accepted', data: { n: 2 } }], 2n);
    await settled(sql);
    const report = await verifyLog(store);
    expect(report).toMatchObject({ events: 4, hashed: 2, unhashed: 2, broken: [] });
    const [, , third] = await store.readStream('agent-old');
    await admin.query(`UPDATE ${schema}.es_events SET data = '{"n":7}' WHERE event_id = $1`, [third!.id]);
    expect((await verifyLog(store)).broken.map((b) => b.event_id)).toEqual([third!.id]);
    await store.close();
  });
});
