/**
 * Atomic appends to several streams (`appendAtomically`) on PostgreSQL, server and PGlite: all land or
 * none, whichever stream's expectation fails, under real parallel appends (on the server from several
 * stores, each its own connections, as API instances are; on PGlite in one process's group commits).
 */
import { randomUUID } from 'node:crypto';
import { Pool } from 'pg';
import { embeddedSql, serverSql, type Sql } from '../sql/sql';
import { DATABASE_URL, dropSchema, uniqueName } from '@tokenops/testing/servers';
import { databaseTemplate } from '@tokenops/testing/database-template';
import {
  WrongExpectedRevision,
  comparePositions,
  type AppendResult,
  type ExpectedRevision,
  type NewEvent,
} from './port';
import { PostgresEventStore } from './postgres';
import { readable } from './contract';

const schemas: string[] = [];
let pglite: Sql | undefined;
afterAll(async () => {
  await pglite?.close();
  for (const schema of schemas) await dropSchema(schema);
});

/** Stores over one database: on the server each with its own pool (separate transactions, as separate processes). */
const variants: [string, (count: number) => Promise<PostgresEventStore[]>][] = [
  [
    'PostgreSQL server',
    async (count) => {
      const schema = uniqueName('es_atomic');
      schemas.push(schema);
      const stores: PostgresEventStore[] = [];
      for (let i = 0; i < count; i++)
        stores.push(
          await PostgresEventStore.open(await serverSql({ connectionString: DATABASE_URL, schema })),
        );
      return stores;
    },
  ],
  [
    'PGlite (embedded)',
    async (count) => {
      pglite ??= await embeddedSql(undefined, await databaseTemplate());
      const shared = { ...pglite, close: async () => undefined };
      return Promise.all(Array.from({ length: count }, () => PostgresEventStore.open(shared)));
    },
  ],
];

const ev = (type: string, data: unknown = {}): NewEvent => ({ type, data });
const part = (stream: string, expected: ExpectedRevision, ...events: NewEvent[]) => ({
  stream,
  events,
  expected,
});

// Plain values in assertions: a failure message with a bigint cannot travel from jest's worker.
const revisions = (results: readonly AppendResult[]) => results.map((r) => Number(r.nextRevision));
const conflictOf = (err: unknown) =>
  err instanceof WrongExpectedRevision
    ? { stream: err.stream, expected: String(err.expected), actual: String(err.actual) }
    : err instanceof Error
      ? err.message
      : 'no conflict';

const types = async (store: PostgresEventStore, stream: string) =>
  (await store.readStream(stream)).map((e) => e.type);

describe.each(variants)('atomic appends: %s', (_name, open) => {
  let stores: PostgresEventStore[] = [];
  afterEach(async () => {
    await Promise.all(stores.map((s) => s.close()));
    stores = [];
  });
  const one = async () => {
    stores = await open(1);
    return stores[0]!;
  };
  const streams = () => {
    const id = randomUUID();
    return [`budget-${id}`, `agent-${id}`, `other-${id}`] as const;
  };

  it('lands every stream at its revision, in one transaction, in the order given', async () => {
    const store = await one();
    const [a, b] = streams();
    await store.append(b, [ev('b0'), ev('b1')], 'no_stream');
    const results = await store.appendAtomically([
      part(a, 'no_stream', ev('a0')),
      part(b, 1n, ev('b2'), ev('b3')),
    ]);
    expect(revisions(results)).toEqual([0, 3]);
    expect(String(results[0]!.position.commit)).toBe(String(results[1]!.position.commit));
    expect(comparePositions(results[0]!.position, results[1]!.position)).toBeLessThan(0);
    expect((await store.readStream(a)).map((e) => e.type)).toEqual(['a0']);
    expect((await store.readStream(b)).map((e) => [e.type, Number(e.revision)])).toEqual([
      ['b0', 0],
      ['b1', 1],
      ['b2', 2],
      ['b3', 3],
    ]);
    // The log holds them in the order given; each stream's hash chain goes on from its last event.
    await readable(store, results[1]!.position);
    const log = (await store.readAll({ from: (await store.readStream(b))[1]!.position })).filter(
      (e) => e.stream === a || e.stream === b,
    );
    expect(log.map((e) => e.type)).toEqual(['a0', 'b2', 'b3']);
    expect(log.every((e) => typeof e.hash === 'string')).toBe(true);
  });

  it.each([
    ['the first stream', 0],
    ['the second stream', 1],
  ])('lands nothing when %s conflicts, and says which', async (_which, conflicting) => {
    const store = await one();
    const [a, b] = streams();
    await store.append(a, [ev('a0')], 'no_stream');
    await store.append(b, [ev('b0')], 'no_stream');
    const expected: [bigint, bigint] = conflicting === 0 ? [5n, 0n] : [0n, 5n];
    const err = await store
      .appendAtomically([part(a, expected[0], ev('a1')), part(b, expected[1], ev('b1'))])
      .catch((e: unknown) => e);
    expect(conflictOf(err)).toEqual({ stream: conflicting === 0 ? a : b, expected: '5', actual: '0' });
    expect((await store.readStream(a)).map((e) => e.type)).toEqual(['a0']);
    expect((await store.readStream(b)).map((e) => e.type)).toEqual(['b0']);
    // The revisions were rolled back too: the same append at the right revisions lands.
    const results = await store.appendAtomically([part(a, 0n, ev('a1')), part(b, 0n, ev('b1'))]);
    expect(revisions(results)).toEqual([1, 1]);
  });

  it('lands nothing when a new stream exists already (no_stream), and leaves an existing one as it was', async () => {
    const store = await one();
    const [a, b] = streams();
    await store.append(b, [ev('b0')], 'no_stream');
    const err = await store
      .appendAtomically([part(a, 'no_stream', ev('a0')), part(b, 'no_stream', ev('b1'))])
      .catch((e: unknown) => e);
    expect(conflictOf(err)).toEqual({ stream: b, expected: 'no_stream', actual: '0' });
    expect(await types(store, a)).toEqual([]);
    // The first stream was never created: it still takes a no_stream append.
    expect(revisions([await store.append(a, [ev('a0')], 'no_stream')])).toEqual([0]);
  });

  it('answers the same events appended again without storing them twice', async () => {
    const store = await one();
    const [a, b] = streams();
    const events = [
      part(a, 'no_stream', { ...ev('a0'), id: randomUUID() }),
      part(b, 'no_stream', { ...ev('b0'), id: randomUUID() }),
    ];
    const first = await store.appendAtomically(events);
    const again = await store.appendAtomically(events);
    expect(revisions(again)).toEqual(revisions(first));
    expect(await types(store, a)).toHaveLength(1);
    expect(await types(store, b)).toHaveLength(1);
  });

  it('fails alone: plain and atomic appends in the same group commit land beside a conflicting one', async () => {
    const store = await one();
    const [a, b, c] = streams();
    await store.append(a, [ev('a0')], 'no_stream');
    // Many at once: those past the appends in flight travel together in one transaction.
    const plain = Array.from({ length: 8 }, (_, i) => store.append(`${c}-${i}`, [ev('c')], 'no_stream'));
    const failing = store
      .appendAtomically([part(b, 'no_stream', ev('b0')), part(a, 7n, ev('a1'))])
      .catch((e: unknown) => e);
    const fine = store.appendAtomically([part(`${b}-x`, 'no_stream', ev('x0')), part(a, 0n, ev('a1'))]);
    await Promise.all(plain);
    expect(conflictOf(await failing)).toEqual({ stream: a, expected: '7', actual: '0' });
    expect(revisions(await fine)).toEqual([0, 1]);
    expect(await types(store, b)).toEqual([]);
    expect((await store.readStream(a)).map((e) => e.type)).toEqual(['a0', 'a1']);
  });

  it('under parallel racers on overlapping streams, each racer lands whole or not at all, one per stream', async () => {
    stores = await open(4);
    const [a, b, c] = streams();
    await stores[0]!.append(a, [ev('start')], 'no_stream');
    await stores[0]!.append(b, [ev('start')], 'no_stream');
    // Racers 0, 2, 4... want a and b; racers 1, 3, 5... want b and c; all at the revisions they read.
    const racers = Array.from({ length: 24 }, (_, i) => {
      const store = stores[i % stores.length]!;
      const who = { racer: i };
      const parts =
        i % 2 === 0
          ? [part(a, 0n, ev('won', who)), part(b, 0n, ev('won', who))]
          : [part(b, 0n, ev('won', who)), part(c, 'no_stream', ev('won', who))];
      return store.appendAtomically(parts).then(
        () => i,
        (err: unknown) => {
          if (!(err instanceof WrongExpectedRevision)) throw err;
          return undefined;
        },
      );
    });
    const winners = (await Promise.all(racers)).filter((i) => i !== undefined);
    const racersOn = async (stream: string) =>
      (await stores[0]!.readStream(stream))
        .filter((e) => e.type === 'won')
        .map((e) => (e.data as { racer: number }).racer);
    // b is in every racer's append: exactly one lands, and its other stream holds it too; the other
    // side's stream holds nothing.
    expect(winners).toHaveLength(1);
    const winner = winners[0]!;
    expect(await racersOn(b)).toEqual([winner]);
    expect(await racersOn(a)).toEqual(winner % 2 === 0 ? [winner] : []);
    expect(await racersOn(c)).toEqual(winner % 2 === 0 ? [] : [winner]);
  });

  it('under parallel racers on disjoint pairs sharing one stream each way, never lands half of one', async () => {
    stores = await open(4);
    const id = randomUUID();
    const ring = Array.from({ length: 6 }, (_, i) => `ring-${id}-${i}`);
    // Racer i appends to streams i and i+1 (a ring), each expected empty: neighbours conflict.
    const attempts = Array.from({ length: 30 }, (_, k) => {
      const i = k % ring.length;
      const store = stores[k % stores.length]!;
      const who = { racer: k };
      return store
        .appendAtomically([
          part(ring[i]!, 'no_stream', ev('won', who)),
          part(ring[(i + 1) % ring.length]!, 'no_stream', ev('won', who)),
        ])
        .then(
          () => k,
          (err: unknown) => {
            if (!(err instanceof WrongExpectedRevision)) throw err;
            return undefined;
          },
        );
    });
    const winners = (await Promise.all(attempts)).filter((k) => k !== undefined);
    const holders = await Promise.all(
      ring.map(async (s) => (await stores[0]!.readStream(s)).map((e) => (e.data as { racer: number }).racer)),
    );
    // Every stream holds at most one event, and every winner's event is in both its streams.
    expect(holders.every((h) => h.length <= 1)).toBe(true);
    for (const k of winners) {
      const i = k % ring.length;
      expect(holders[i]).toEqual([k]);
      expect(holders[(i + 1) % ring.length]).toEqual([k]);
    }
    // And nothing landed that is not a winner's.
    expect(holders.flat().sort()).toEqual(winners.flatMap((k) => [k, k]).sort());
  });
});

describe('atomic appends on a server, in a deadlock', () => {
  it('are sent again when PostgreSQL aborts their transaction to break one, and land whole', async () => {
    const schema = uniqueName('es_deadlock');
    schemas.push(schema);
    const store = await PostgresEventStore.open(await serverSql({ connectionString: DATABASE_URL, schema }));
    const pool = new Pool({ connectionString: DATABASE_URL, options: `-c search_path=${schema}`, max: 1 });
    const other = await pool.connect();
    try {
      const [a, b] = [`deadlock-a-${randomUUID()}`, `deadlock-b-${randomUUID()}`];
      await store.append(a, [ev('a0')], 'no_stream');
      await store.append(b, [ev('b0')], 'no_stream');
      // Another writer holds b; the atomic append takes a and waits for b; the other writer then wants
      // a: a deadlock, and PostgreSQL aborts the transaction that waited longest (the append's).
      await other.query('BEGIN');
      await other.query(`UPDATE es_streams SET revision = revision WHERE stream_name = $1`, [b]);
      const appended = store.appendAtomically([part(a, 0n, ev('a1')), part(b, 0n, ev('b1'))]);
      await new Promise((r) => setTimeout(r, 200));
      const otherWaits = other
        .query(`UPDATE es_streams SET revision = revision WHERE stream_name = $1`, [a])
        .then(
          () => 'locked',
          (err: { code?: string }) => err.code,
        );
      // The other writer gets a (the append's transaction was aborted) or is the one aborted itself;
      // either way it ends its transaction and the append, sent again if it was aborted, lands whole.
      const outcome = await otherWaits;
      await other.query('ROLLBACK');
      expect(revisions(await appended)).toEqual([1, 1]);
      expect(['locked', '40P01']).toContain(outcome);
      expect(await types(store, a)).toEqual(['a0', 'a1']);
      expect(await types(store, b)).toEqual(['b0', 'b1']);
    } finally {
      other.release();
      await pool.end();
      await store.close();
    }
  });
});
