/** Redis-only parts of the read models: guarded commits, bulk loads, and the lease they rest on. */
import Redis from 'ioredis';
import { REDIS_URL, uniqueName } from '@tokenops/testing/servers';
import { Lease, whileLeader, type LeaseChange } from './lease';
import { MemoryReadModelStore } from './memory';
import { FencedOut, RedisReadModelStore } from './redis';
import { setTimeout as sleep } from 'node:timers/promises';

const at = (n: bigint) => ({ commit: n, prepare: n });

let redis: Redis;
beforeAll(() => {
  redis = new Redis(REDIS_URL);
});
afterAll(async () => {
  await redis.quit();
});

describe('a guarded commit', () => {
  it('applies while every guard key holds its value, and is refused (FencedOut) without writing once one does not', async () => {
    const ns = uniqueName('guarded');
    const guard = { key: `${ns}-lease`, value: 'me' };
    await redis.set(guard.key, 'me');
    const store = new RedisReadModelStore(redis, ns, [guard]);
    expect(await store.commit('p', at(1n), [{ op: 'incr', key: 'n', by: 1 }])).toBe(true);
    await redis.set(guard.key, 'someone else');
    await expect(store.commit('p', at(2n), [{ op: 'incr', key: 'n', by: 1 }])).rejects.toBeInstanceOf(
      FencedOut,
    );
    expect(await store.counter('n')).toBe(1);
    expect(await store.checkpoint('p')).toEqual(at(1n));
    await store.clear();
    await redis.del(guard.key);
  });
});

describe('a bulk load', () => {
  it('makes the Redis store equal, key for key, to the in-memory one it was built in', async () => {
    const memory = new MemoryReadModelStore('m');
    for (let i = 1n; i <= 50n; i++)
      await memory.commit('p', at(i), [
        { op: 'set', key: `doc:${i % 7n}`, value: { i: Number(i) } },
        { op: 'incr', key: 'count', by: 1 },
        { op: 'zadd', key: `set:${i % 3n}`, score: Number(i), member: `m${i}` },
        { op: 'ztrim', key: `set:${i % 3n}`, keep: 5 },
      ]);
    const store = new RedisReadModelStore(redis, uniqueName('loaded'));
    await store.load(memory.entries(), 7);
    expect(await store.dump()).toEqual(await memory.dump());
    expect(await store.checkpoint('p')).toEqual(at(50n));
    await store.clear();
  });
});

describe('a lease', () => {
  it('has one holder; a standby takes over when the holder stops renewing, and the old holder is told', async () => {
    const key = uniqueName('lease');
    const a = new Lease(redis, key, 600);
    const b = new Lease(redis, key, 600);
    let lost = false;
    expect(await a.hold({ onLost: () => (lost = true), aborted: () => false })).toBe(true);
    expect(await b.tryAcquire()).toBe(false);
    await sleep(700); // renewed by a: still a's
    expect(await b.tryAcquire()).toBe(false);
    await redis.set(key, 'stolen'); // as if a had paused past its time to live and b had taken over
    await sleep(400);
    expect(lost).toBe(true);
    await a.release(); // does not release what is not its own
    expect(await redis.get(key)).toBe('stolen');
    await redis.del(key);
  });

  it('whileLeader: one runs the work; when it stops, a standby runs it', async () => {
    const key = uniqueName('leader');
    const running: string[] = [];
    const changes: [string, LeaseChange['held'], string?][] = [];
    const start = (name: string) =>
      whileLeader({
        redis,
        key,
        ttlMs: 600,
        retryMs: 50,
        onError: () => undefined,
        onChange: (c) => changes.push(c.held ? [name, true] : [name, false, c.reason]),
        work: async () => {
          running.push(name);
          let stop!: () => void;
          const done = new Promise<void>((r) => (stop = r));
          return { done, stop: async () => stop() };
        },
      });
    const first = start('first');
    await sleep(100);
    const second = start('second');
    await sleep(300);
    expect(running).toEqual(['first']);
    expect(first.leading()).toBe(true);
    expect(second.leading()).toBe(false);
    await first.stop();
    for (let i = 0; i < 40 && running.length < 2; i++) await sleep(50);
    expect(running).toEqual(['first', 'second']);
    // The holder's lease taken from under it (it paused past its time to live): it is told it lost it.
    await redis.set(key, 'stolen');
    for (let i = 0; i < 40 && changes.length < 4; i++) await sleep(50);
    await redis.del(key);
    for (let i = 0; i < 40 && changes.length < 5; i++) await sleep(50);
    await second.stop();
    expect(changes).toEqual([
      ['first', true],
      ['first', false, 'stopping'],
      ['second', true],
      ['second', false, 'lost'],
      ['second', true],
      ['second', false, 'stopping'],
    ]);
  });
});
