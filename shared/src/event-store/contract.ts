/**
 * The event store's contract: the behaviour every adapter must show, written once. Each adapter's
 * `*.int.spec.ts` calls `eventStoreContract` with a factory for a fresh store: empty, or holding only
 * what earlier tests wrote (each test writes and checks streams of its own, and reads of the whole log
 * look at those streams or at what it appended last).
 */
import { randomUUID } from 'node:crypto';
import { GENESIS_LINK, contentHash, linkHash } from './hash-chain';
import {
  WrongExpectedRevision,
  comparePositions,
  type EventStore,
  type LogPosition,
  type RecordedEvent,
} from './port';

export function eventStoreContract(name: string, open: () => Promise<EventStore>): void {
  describe(`event store contract: ${name}`, () => {
    let store: EventStore;
    beforeEach(async () => {
      store = await open();
    });
    afterEach(async () => {
      await store.close();
    });

    const stream = () => `test-${randomUUID()}`;
    const ev = (type: string, data: unknown = {}) => ({ type, data });

    it('appends to a new stream and reads back ids, types, data and metadata in order', async () => {
      const s = stream();
      const id = randomUUID();
      const result = await store.append(
        s,
        [
          {
            id,
            type: 'a.happened',
            data: { amount: '12.5', n: 1 },
            metadata: { correlation_id: 'c-1', causation_id: 'k-1' },
          },
          ev('b.happened', { list: [1, 2] }),
        ],
        'no_stream',
      );
      expect(result.nextRevision).toBe(1n);
      const events = await store.readStream(s);
      expect(events.map((e) => [e.type, e.revision, e.stream])).toEqual([
        ['a.happened', 0n, s],
        ['b.happened', 1n, s],
      ]);
      expect(events[0]).toEqual(
        expect.objectContaining({
          id,
          data: { amount: '12.5', n: 1 },
          metadata: expect.objectContaining({
            correlation_id: 'c-1',
            causation_id: 'k-1',
            timestamp: expect.any(String),
          }),
        }),
      );
      expect(Number.isNaN(Date.parse(events[0]!.metadata.timestamp))).toBe(false);
      expect(comparePositions(events[1]!.position, result.position)).toBe(0);
    });

    it('appends at the exact expected revision and refuses a stale one with the actual revision', async () => {
      const s = stream();
      await store.append(s, [ev('x')], 'no_stream');
      expect((await store.append(s, [ev('y')], 0n)).nextRevision).toBe(1n);
      const err = await store.append(s, [ev('z')], 0n).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(WrongExpectedRevision);
      expect((err as WrongExpectedRevision).actual).toBe(1n);
      expect((await store.readStream(s)).map((e) => e.type)).toEqual(['x', 'y']);
    });

    it('honours no_stream, stream_exists and any', async () => {
      const s = stream();
      const missing = await store.append(s, [ev('x')], 'stream_exists').catch((e: unknown) => e);
      expect(missing).toBeInstanceOf(WrongExpectedRevision);
      expect((missing as WrongExpectedRevision).actual).toBeUndefined();
      expect((await store.append(s, [ev('x')], 'any')).nextRevision).toBe(0n);
      expect((await store.append(s, [ev('y')], 'stream_exists')).nextRevision).toBe(1n);
      const exists = await store.append(s, [ev('z')], 'no_stream').catch((e: unknown) => e);
      expect((exists as WrongExpectedRevision).actual).toBe(1n);
      expect((await store.append(s, [ev('z')], 'any')).nextRevision).toBe(2n);
    });

    it('stores nothing twice when an append is repeated with the same event ids', async () => {
      const s = stream();
      const batch = [
        { id: randomUUID(), ...ev('x') },
        { id: randomUUID(), ...ev('y') },
      ];
      const first = await store.append(s, batch, 'no_stream');
      const again = await store.append(s, batch, 'no_stream');
      expect(again.nextRevision).toBe(first.nextRevision);
      expect(await store.readStream(s)).toHaveLength(2);
    });

    it('lets exactly one of many concurrent appends at the same expected revision win', async () => {
      const s = stream();
      await store.append(s, [ev('start')], 'no_stream');
      const results = await Promise.allSettled(
        Array.from({ length: 10 }, (_, i) => store.append(s, [ev(`w${i}`)], 0n)),
      );
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      const rejected = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
      expect(rejected.every((r) => r.reason instanceof WrongExpectedRevision)).toBe(true);
      expect(await store.readStream(s)).toHaveLength(2);
    });

    it('reads a stream from a revision, a page at a time; a missing stream is empty', async () => {
      const s = stream();
      await store.append(
        s,
        Array.from({ length: 5 }, (_, i) => ev(`e${i}`)),
        'no_stream',
      );
      expect((await store.readStream(s, { fromRevision: 3n })).map((e) => e.type)).toEqual(['e3', 'e4']);
      expect((await store.readStream(s, { fromRevision: 1n, maxCount: 2 })).map((e) => e.type)).toEqual([
        'e1',
        'e2',
      ]);
      expect(await store.readStream(stream())).toEqual([]);
    });

    it('answers reads made at once each with its own stream, from its revision, a page at a time', async () => {
      const [a, b, missing] = [stream(), stream(), stream()];
      await store.append(
        a,
        Array.from({ length: 4 }, (_, i) => ev(`a${i}`)),
        'no_stream',
      );
      await store.append(
        b,
        Array.from({ length: 3 }, (_, i) => ev(`b${i}`)),
        'no_stream',
      );
      const types = (events: RecordedEvent[]) => events.map((e) => e.type);
      const [whole, tail, page, none, again] = await Promise.all([
        store.readStream(a),
        store.readStream(b, { fromRevision: 1n }),
        store.readStream(a, { fromRevision: 1n, maxCount: 2 }),
        store.readStream(missing),
        store.readStream(b),
      ]);
      expect(types(whole)).toEqual(['a0', 'a1', 'a2', 'a3']);
      expect(tail.map((e) => [e.type, e.revision])).toEqual([
        ['b1', 1n],
        ['b2', 2n],
      ]);
      expect(types(page)).toEqual(['a1', 'a2']);
      expect(none).toEqual([]);
      expect(again).toEqual(await store.readStream(b));
      expect(again.every((e) => e.stream === b)).toBe(true);
    });

    it('reads the whole log in order after an exclusive position', async () => {
      const a = stream();
      const b = stream();
      await store.append(a, [ev('a0')], 'no_stream');
      await store.append(b, [ev('b0'), ev('b1')], 'no_stream');
      await readable(store, (await store.append(a, [ev('a1')], 0n)).position);
      const all = (await store.readAll({ maxCount: 100_000 })).filter(
        (e) => e.stream === a || e.stream === b,
      );
      expect(all.map((e) => e.type)).toEqual(['a0', 'b0', 'b1', 'a1']);
      for (let i = 1; i < all.length; i++)
        expect(comparePositions(all[i - 1]!.position, all[i]!.position)).toBeLessThan(0);
      const after = await store.readAll({ from: all[1]!.position, maxCount: 2 });
      expect(after.map((e) => e.type)).toEqual(['b1', 'a1']);
    });

    it('knows the position of the last event', async () => {
      const s = stream();
      const result = await store.append(s, [ev('x'), ev('y')], 'no_stream');
      await readable(store, result.position);
      expect(comparePositions(await store.headPosition(), result.position)).toBe(0);
    });

    it('subscribes: catches up from a checkpoint, then delivers live appends in order, and stops', async () => {
      const s = stream();
      await store.append(s, [ev('old0'), ev('old1')], 'no_stream');
      const [first] = await store.readStream(s);
      const seen: RecordedEvent[] = [];
      let caughtUp = false;
      const sub = store.subscribeToAll({
        from: first!.position,
        onEvent: (e) => {
          if (e.stream === s) seen.push(e);
        },
        onCaughtUp: () => (caughtUp = true),
      });
      await waitFor(() => caughtUp && seen.length === 1);
      await store.append(s, [ev('live0')], 1n);
      await store.append(s, [ev('live1')], 2n);
      await waitFor(() => seen.length === 3);
      await sub.stop();
      await sub.done;
      expect(seen.map((e) => e.type)).toEqual(['old1', 'live0', 'live1']);
      await store.append(s, [ev('after-stop')], 3n);
      await new Promise((r) => setTimeout(r, 100));
      expect(seen).toHaveLength(3);
    });

    it('chains every event to the one before it in its stream, also under concurrent appends', async () => {
      const s = stream();
      await store.append(s, [ev('first', { n: 0 }), ev('second', { list: [1, 'é', null] })], 'no_stream');
      await Promise.all(
        Array.from({ length: 12 }, (_, i) => store.append(s, [ev('parallel', { i })], 'any')),
      );
      const events = await store.readStream(s);
      expect(events).toHaveLength(14);
      const last = events.reduce((a, e) => (comparePositions(e.position, a.position) > 0 ? e : a));
      await readable(store, last.position);
      let link = GENESIS_LINK;
      for (const e of events) {
        link = linkHash(link, contentHash(e));
        expect(e.hash).toBe(link.toString('hex'));
      }
      // The log shows the same links as the stream.
      const inLog = (await store.readAll({ maxCount: 1_000 })).filter((e) => e.stream === s);
      expect(inLog.map((e) => e.hash)).toEqual(events.map((e) => e.hash));
    });

    it('ends a subscription whose handler throws, with that error', async () => {
      const s = stream();
      await store.append(s, [ev('boom')], 'no_stream');
      const sub = store.subscribeToAll({
        onEvent: (e) => {
          if (e.stream === s) throw new Error('handler failed');
        },
      });
      await expect(sub.done).rejects.toThrow('handler failed');
      await sub.stop();
    });
  });
}

/**
 * Waits (10 s at most) until the log reads up to `position`. On a PostgreSQL server the log is read
 * below the oldest transaction still open on the whole server: another suite's may hold it back a
 * moment (ordering.int.spec.ts), never past; the other stores read their appends at once.
 */
export async function readable(store: EventStore, position: LogPosition): Promise<void> {
  await waitFor(async () => comparePositions(await store.headPosition(), position) >= 0, 10_000);
}

/** Polls `condition` until it holds (5 s at most). */
export async function waitFor(condition: () => boolean | Promise<boolean>, timeoutMs = 5_000): Promise<void> {
  const start = Date.now();
  while (!(await condition())) {
    if (Date.now() - start > timeoutMs) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}
