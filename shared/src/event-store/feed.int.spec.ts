/**
 * A store that is its log's only writer (the embedded PGlite) hands what its appends commit to its
 * live subscribers in process (feed.ts): a subscriber reads the log only while it catches up, gets
 * every event exactly once and in order across the switch to the feed, and the very events a read
 * returns. Each test has a PGlite database of its own, so the log holds only its events.
 */
import { randomUUID } from 'node:crypto';
import { embeddedSql, type Sql } from '../sql/sql';
import { databaseTemplate } from '@tokenops/testing/database-template';
import { waitFor } from './contract';
import { PostgresEventStore } from './postgres';
import { WrongExpectedRevision, comparePositions, type RecordedEvent, type Subscription } from './port';

interface Counted {
  store: PostgresEventStore;
  /** Reads of the whole log (readAll) the store has made so far. */
  reads(): number;
  /** The same log, read without being counted: what the test checks against. */
  log(): Promise<RecordedEvent[]>;
}

async function onlyWriter(batchSize = 2_000): Promise<Counted> {
  const sql = await embeddedSql(undefined, await databaseTemplate());
  let reads = 0;
  const counting: Sql = {
    ...sql,
    query: (text, params, name) => {
      if (name === 'es_read_all') reads += 1;
      return sql.query(text, params, name);
    },
  };
  const store = await PostgresEventStore.open(counting, { onlyWriter: true, batchSize });
  const checker = PostgresEventStore.reader(sql);
  return { store, reads: () => reads, log: () => checker.readAll({ maxCount: 1_000_000 }) };
}

let opened: Counted | undefined;
afterEach(async () => opened?.store.close());
const open = async (batchSize?: number) => (opened = await onlyWriter(batchSize));

const ev = (type: string, data: unknown = {}) => ({ type, data });
/** Events as JSON (bigints as strings), key order included. */
const asJson = (events: RecordedEvent[]) =>
  JSON.stringify(events, (_, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
/** Appends `count` times from `writers` writers at once, 1 to 3 events each, to streams of their own. */
async function appendInParallel(store: PostgresEventStore, writers: number, count: number): Promise<void> {
  await Promise.all(
    Array.from({ length: writers }, async (_, w) => {
      const stream = `writer-${w}-${randomUUID()}`;
      for (let i = 0; i < count; i++)
        await store.append(
          stream,
          Array.from({ length: 1 + ((w + i) % 3) }, (_, k) => ev('test.appended', { w, i, k })),
          'any',
        );
    }),
  );
}
/** Asserts the subscriber got the whole log, each event once, in log order, as a read returns it. */
/** A subscriber from the start of the log that keeps what it gets, once it has caught up. */
async function follow(store: PostgresEventStore): Promise<{ seen: RecordedEvent[]; sub: Subscription }> {
  const seen: RecordedEvent[] = [];
  let caughtUp = false;
  const sub = store.subscribeToAll({
    onEvent: (e) => void seen.push(e),
    onCaughtUp: () => (caughtUp = true),
  });
  await waitFor(() => caughtUp);
  return { seen, sub };
}

async function expectWholeLog(seen: RecordedEvent[]): Promise<void> {
  const log = await opened!.log();
  await waitFor(() => seen.length >= log.length, 10_000);
  for (let i = 1; i < seen.length; i++)
    expect(comparePositions(seen[i - 1]!.position, seen[i]!.position)).toBeLessThan(0);
  expect(seen.map((e) => e.id)).toEqual(log.map((e) => e.id));
  expect(asJson(seen)).toBe(asJson(log));
}

describe('a store that is its log’s only writer (PGlite)', () => {
  it('delivers every event once and in order to a reader that catches up while parallel appends go on', async () => {
    const { store, reads } = await open(7);
    await appendInParallel(store, 4, 10); // a log to catch up on, several pages of 7
    const seen: RecordedEvent[] = [];
    let caughtUp = false;
    const writing = appendInParallel(store, 8, 15);
    const sub = store.subscribeToAll({
      onEvent: async (e) => {
        seen.push(e);
        // A reader slower than the writers at times: it switches to the feed while they append.
        if (seen.length % 5 === 0) await new Promise((r) => setImmediate(r));
      },
      onCaughtUp: () => (caughtUp = true),
    });
    await writing;
    await expectWholeLog(seen);
    expect(caughtUp).toBe(true);
    expect(reads()).toBeGreaterThan(3); // it caught up a page of 7 at a time
    // Live: more parallel appends, a statement of them often more than the 7 it may fall behind by.
    await appendInParallel(store, 8, 10);
    await expectWholeLog(seen);
    await sub.stop();
  });

  it('reads the log not once while it keeps up with live appends, however many subscribers follow it', async () => {
    const { store, reads } = await open();
    await store.append('before', [ev('test.old')], 'no_stream');
    const followers = Array.from({ length: 4 }, () => {
      const seen: RecordedEvent[] = [];
      let caughtUp = false;
      const sub = store.subscribeToAll({
        onEvent: (e) => void seen.push(e),
        onCaughtUp: () => (caughtUp = true),
        // The hint that decides when to read from a server: nothing to decide here.
        wakeFor: (type) => type === 'test.rare',
      });
      return { seen, sub, caughtUp: () => caughtUp };
    });
    await waitFor(() => followers.every((f) => f.caughtUp()));
    const readsAtStart = reads();
    expect(readsAtStart).toBe(4); // one each, to catch up
    await appendInParallel(store, 8, 25);
    for (const f of followers) await expectWholeLog(f.seen);
    expect(reads()).toBe(readsAtStart);
    // Nor does it poll when the log is quiet.
    await new Promise((r) => setTimeout(r, 1_500));
    expect(reads()).toBe(readsAtStart);
    for (const f of followers) await f.sub.stop();
  });

  it('lets a slow subscriber fall behind without holding more than a batch: it reads again, missing nothing', async () => {
    const { store, reads } = await open(5);
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const seen: RecordedEvent[] = [];
    let caughtUp = false;
    const sub = store.subscribeToAll({
      onEvent: async (e) => {
        seen.push(e);
        if (seen.length === 1) await gate;
      },
      onCaughtUp: () => (caughtUp = true),
    });
    await waitFor(() => caughtUp);
    const readsBefore = reads();
    await appendInParallel(store, 4, 10); // far more than the 5 its tap holds, while it is stuck
    await new Promise((r) => setTimeout(r, 100)); // handed on (at the next turn of the event loop)
    release();
    await expectWholeLog(seen);
    expect(reads()).toBeGreaterThan(readsBefore); // it fell behind and read its way back
    // Caught up again, it is fed.
    const readsAfter = reads();
    await store.append('after', [ev('test.live')], 'no_stream');
    await expectWholeLog(seen);
    expect(reads()).toBe(readsAfter);
    await sub.stop();
  });

  it('hands on nothing for an append that failed, conflicted or repeated one already stored', async () => {
    const { store } = await open();
    const { seen, sub } = await follow(store);
    const repeated = [{ id: randomUUID(), ...ev('test.once') }];
    await store.append('s', repeated, 'no_stream');
    await store.append('s', repeated, 'no_stream'); // the same ids: stored once
    const conflict = await store.append('s', [ev('test.stale')], 'no_stream').catch((e: unknown) => e);
    expect(conflict).toBeInstanceOf(WrongExpectedRevision);
    // jsonb refuses a NUL character: the whole statement fails.
    await expect(store.append('t', [ev('test.refused', { text: 'a\u0000b' })], 'any')).rejects.toThrow();
    // Appends that travel in one statement with a conflict still land, and are handed on.
    const together = await Promise.allSettled([
      store.append('s', [ev('test.late')], 'no_stream'),
      store.append('u', [ev('test.first'), ev('test.second')], 'no_stream'),
      store.append('s', [ev('test.next')], 0n),
    ]);
    expect(together.map((r) => r.status)).toEqual(['rejected', 'fulfilled', 'fulfilled']);
    await expectWholeLog(seen);
    expect(seen.map((e) => e.type)).toEqual(['test.once', 'test.first', 'test.second', 'test.next']);
    await sub.stop();
  });

  it('hands on the very events a read returns: data and metadata as jsonb keeps them, revisions, links', async () => {
    const { store } = await open();
    const { seen, sub } = await follow(store);
    const data = {
      zeta: 1,
      a: { yy: [{ b: 1, a: 2 }], x: null, gone: undefined },
      é: 'accent',
      e: 'plain',
      '10': 'numeric key',
      when: new Date(0),
      amount: 12.5,
    };
    await store.append('one', [ev('test.shaped', data)], 'no_stream');
    await store.append(
      'one',
      [
        { ...ev('test.more', { n: 1 }), metadata: { correlation_id: 'c', causation_id: 'k', z: [1] } },
        ev('test.more', { n: 2 }),
      ],
      0n,
    );
    await expectWholeLog(seen);
    expect(seen.map((e) => [e.revision, e.hash?.length])).toEqual([
      [0n, 64],
      [1n, 64],
      [2n, 64],
    ]);
    await sub.stop();
  });

  it('hands an append on only once the code that made it has gone on, as a read would', async () => {
    const { store } = await open();
    const resumed = new Set<string>();
    const early: string[] = [];
    const seen: RecordedEvent[] = [];
    let caughtUp = false;
    const sub = store.subscribeToAll({
      onEvent: (e) => {
        seen.push(e);
        if (!resumed.has(e.stream)) early.push(e.stream);
      },
      onCaughtUp: () => (caughtUp = true),
    });
    await waitFor(() => caughtUp);
    // Like the embedded repositories: the appender takes in the answer through a few wrappers, then
    // records what it appended (its cache), which the subscribers' work may read.
    await Promise.all(
      Array.from({ length: 20 }, async (_, i) => {
        await store.append(`resumed-${i}`, [ev('test.appended')], 'no_stream');
        for (let hop = 0; hop < 10; hop++) await null;
        resumed.add(`resumed-${i}`);
      }),
    );
    await expectWholeLog(seen);
    expect(early).toEqual([]);
    await sub.stop();
  });

  it('stops: nothing more is delivered, and a store that closes ends its subscriptions', async () => {
    const { store } = await open();
    const open2 = store.subscribeToAll({ onEvent: () => undefined });
    const { seen, sub: stopped } = await follow(store);
    await store.append('s', [ev('test.before')], 'no_stream');
    await waitFor(() => seen.length === 1);
    await stopped.stop();
    await stopped.done;
    await store.append('s', [ev('test.after')], 0n);
    await new Promise((r) => setTimeout(r, 50));
    expect(seen.map((e) => e.type)).toEqual(['test.before']);
    await store.close();
    opened = undefined;
    await expect(open2.done).resolves.toBeUndefined();
  });
});

describe('atomic appends on a store that is its log’s only writer', () => {
  it('hands on every stream of one that landed, in log order, and nothing of one that conflicted', async () => {
    const { store, reads } = await open();
    await store.append('agent-a', [ev('test.old')], 'no_stream');
    const { seen, sub } = await follow(store);
    const readsAtStart = reads();
    const part = (stream: string, expected: bigint | 'no_stream', type: string) => ({
      stream,
      events: [ev(type)],
      expected,
    });
    const [landed, conflicted, beside] = await Promise.allSettled([
      store.appendAtomically([
        part('budget-b', 'no_stream', 'test.reserved'),
        part('agent-a', 0n, 'test.accepted'),
      ]),
      // Expects agent-a as the test started: the append above takes it first, so none of this lands.
      store.appendAtomically([part('budget-c', 'no_stream', 'test.lost'), part('agent-a', 0n, 'test.lost')]),
      store.append('other-d', [ev('test.beside')], 'no_stream'),
    ]);
    expect(landed.status).toBe('fulfilled');
    expect(conflicted.status === 'rejected' && conflicted.reason instanceof WrongExpectedRevision).toBe(true);
    expect(beside.status).toBe('fulfilled');
    await expectWholeLog(seen);
    expect(seen.map((e) => e.type)).not.toContain('test.lost');
    expect(seen.filter((e) => e.stream === 'budget-b' || e.stream === 'agent-a').map((e) => e.type)).toEqual([
      'test.old',
      'test.reserved',
      'test.accepted',
    ]);
    expect(reads()).toBe(readsAtStart); // fed, not read
    await sub.stop();
  });
});
