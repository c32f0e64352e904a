/** Keyed locks across executor processes: two holders of one key never overlap, other keys run beside. */
import Redis from 'ioredis';
import { REDIS_URL, uniqueName } from '@tokenops/testing/servers';
import { redisLocks } from './locks';

const redis = new Redis(REDIS_URL);
afterAll(async () => redis.quit());

describe('redis locks', () => {
  it('run the work of one key one at a time across instances, and other keys alongside', async () => {
    const prefix = uniqueName('locks');
    // Two executors: two lock sets, each with its own in-process queue, sharing Redis.
    const [a, b] = [redisLocks(redis, prefix), redisLocks(redis, prefix)];
    let inside = 0;
    let most = 0;
    const events: string[] = [];
    const work = (name: string) => async () => {
      inside += 1;
      most = Math.max(most, inside);
      await new Promise((resolve) => setTimeout(resolve, 20));
      events.push(name);
      inside -= 1;
    };
    let other = false;
    await Promise.all([
      ...Array.from({ length: 5 }, (_, i) => a('pool', work(`a${i}`))),
      ...Array.from({ length: 5 }, (_, i) => b('pool', work(`b${i}`))),
      b('another-pool', async () => {
        // Sees a holder of 'pool' at work within a second: the keys do not block each other.
        for (const until = Date.now() + 1_000; !other && Date.now() < until;)
          if (inside > 0) other = true;
          else await new Promise((resolve) => setTimeout(resolve, 2));
      }),
    ]);
    expect(most).toBe(1);
    expect(events).toHaveLength(10);
    expect(other).toBe(true);
  });
});
