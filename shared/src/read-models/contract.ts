/** The read-model store's contract, run against every adapter by its `*.spec.ts`. */
import type { ReadModelStore } from './port';

const at = (commit: bigint, prepare: bigint) => ({ commit, prepare });

export function readModelStoreContract(name: string, open: () => Promise<ReadModelStore>): void {
  describe(`read-model store contract: ${name}`, () => {
    let store: ReadModelStore;
    beforeEach(async () => {
      store = await open();
    });
    afterEach(async () => {
      await store.clear();
      await store.close();
    });

    it('stores documents, counters and sorted sets through commit, and reads them back', async () => {
      expect(
        await store.commit('p', at(1n, 1n), [
          { op: 'set', key: 'agent:a', value: { daily_limit: '100', list: [1, 'x'] } },
          { op: 'incr', key: 'count:a', by: 3 },
          { op: 'incr', key: 'count:a', by: -1 },
          { op: 'zadd', key: 'spends:a', score: 1000, member: 'i1' },
          { op: 'zadd', key: 'spends:a', score: 3000, member: 'i3' },
          { op: 'zadd', key: 'spends:a', score: 2000, member: 'i2' },
        ]),
      ).toBe(true);
      expect(await store.get('agent:a')).toEqual({ daily_limit: '100', list: [1, 'x'] });
      expect(await store.getMany(['agent:a', 'nope'])).toEqual([
        { daily_limit: '100', list: [1, 'x'] },
        undefined,
      ]);
      expect(await store.get('nope')).toBeUndefined();
      expect(await store.counter('count:a')).toBe(2);
      expect(await store.counter('nope')).toBe(0);
      expect(await store.range('spends:a', 0, Infinity)).toEqual([
        { member: 'i1', score: 1000 },
        { member: 'i2', score: 2000 },
        { member: 'i3', score: 3000 },
      ]);
      expect((await store.range('spends:a', 1500, 3000)).map((m) => m.member)).toEqual(['i2', 'i3']);
      expect(
        (await store.range('spends:a', -Infinity, Infinity, { reverse: true, limit: 2 })).map(
          (m) => m.member,
        ),
      ).toEqual(['i3', 'i2']);
    });

    it('drops what left a window and bounds a newest-first list', async () => {
      const ops = Array.from({ length: 6 }, (_, i) => ({
        op: 'zadd' as const,
        key: 'h',
        score: i * 10,
        member: `m${i}`,
      }));
      await store.commit('p', at(1n, 1n), ops);
      await store.commit('p', at(1n, 2n), [{ op: 'zremUpTo', key: 'h', max: 10 }]);
      expect((await store.range('h', -Infinity, Infinity)).map((m) => m.member)).toEqual([
        'm2',
        'm3',
        'm4',
        'm5',
      ]);
      await store.commit('p', at(1n, 3n), [
        { op: 'ztrim', key: 'h', keep: 2 },
        { op: 'zrem', key: 'h', member: 'm5' },
      ]);
      expect((await store.range('h', -Infinity, Infinity)).map((m) => m.member)).toEqual(['m4']);
      await store.commit('p', at(1n, 4n), [{ op: 'del', key: 'h' }]);
      expect(await store.range('h', -Infinity, Infinity)).toEqual([]);
    });

    it('moves the checkpoint with the writes, and skips a position it has already passed', async () => {
      expect(await store.checkpoint('p')).toBeUndefined();
      await store.commit('p', at(5n, 10n), [{ op: 'incr', key: 'n', by: 1 }]);
      expect(await store.checkpoint('p')).toEqual(at(5n, 10n));
      expect(await store.commit('p', at(5n, 10n), [{ op: 'incr', key: 'n', by: 1 }])).toBe(false);
      expect(await store.commit('p', at(4n, 99n), [{ op: 'incr', key: 'n', by: 1 }])).toBe(false);
      expect(await store.counter('n')).toBe(1);
      expect(await store.commit('p', at(5n, 11n), [{ op: 'incr', key: 'n', by: 1 }])).toBe(true);
      expect(await store.commit('p', at(6n, 1n), [{ op: 'incr', key: 'n', by: 1 }])).toBe(true);
      expect(await store.counter('n')).toBe(3);
      expect(await store.checkpoint('other')).toBeUndefined();
    });

    it('compares positions exactly, beyond 2^53', async () => {
      const big = 2n ** 60n;
      await store.commit('p', at(big, big + 1n), []);
      expect(await store.commit('p', at(big, big), [{ op: 'incr', key: 'n', by: 1 }])).toBe(false);
      expect(await store.commit('p', at(big, big + 2n), [{ op: 'incr', key: 'n', by: 1 }])).toBe(true);
      expect(await store.checkpoint('p')).toEqual(at(big, big + 2n));
    });

    it('applies an event once when two projectors race to commit it', async () => {
      const results = await Promise.all(
        Array.from({ length: 10 }, () =>
          store.commit('p', at(7n, 7n), [{ op: 'incr', key: 'raced', by: 1 }]),
        ),
      );
      expect(results.filter(Boolean)).toHaveLength(1);
      expect(await store.counter('raced')).toBe(1);
    });

    it('dumps every key in one comparable form: documents, counters, sets by rank, checkpoints', async () => {
      await store.commit('p', at(1n, 1n), [
        { op: 'set', key: 'doc', value: { a: 1 } },
        { op: 'set', key: 'number-doc', value: 7 },
        { op: 'incr', key: 'n', by: 3 },
        { op: 'zadd', key: 'z', score: 2, member: 'b' },
        { op: 'zadd', key: 'z', score: 1, member: 'a' },
        { op: 'zadd', key: 'emptied', score: 1, member: 'x' },
        { op: 'zrem', key: 'emptied', member: 'x' },
      ]);
      expect(Object.fromEntries(await store.dump())).toEqual({
        checkpoints: '[["p","1:1"]]',
        doc: '{"a":1}',
        n: '3',
        'number-doc': '7',
        z: '[["a",1],["b",2]]',
      });
    });

    it('clears its own namespace only', async () => {
      await store.commit('p', at(1n, 1n), [{ op: 'set', key: 'x', value: 1 }]);
      await store.clear();
      expect(await store.get('x')).toBeUndefined();
      expect(await store.checkpoint('p')).toBeUndefined();
    });
  });
}
