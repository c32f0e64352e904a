/**
 * Keyed locks for work that must not overlap (swaps on one pool: each is built from the pool's live
 * reserves and fixes its output in the transaction). In one process, a FIFO queue per key; across
 * executor processes, a Redis mutex (redis-semaphore) held while the work runs and refreshed every
 * second, so a dead holder's lock lapses by itself within 5 s (TAKEOVER): its swap, handed to another
 * executor by then or soon after, is not held up past the fail-over bound.
 */
import AsyncLock from 'async-lock';
import type Redis from 'ioredis';
import { Mutex } from 'redis-semaphore';
import { TAKEOVER } from '@tokenops/shared/process';

export type Locks = <R>(key: string, work: () => Promise<R>) => Promise<R>;

/** Within this process only (the embedded default: one executor). */
export function processLocks(): Locks {
  const lock = new AsyncLock({ maxPending: Infinity });
  return (key, work) => lock.acquire(key, work);
}

/** Across every executor sharing `redis`: queued in-process first, so a process asks Redis once per turn. */
export function redisLocks(
  redis: Redis,
  prefix: string,
  options = { lockTimeoutMs: TAKEOVER.ttlMs, acquireTimeoutMs: 60_000 },
): Locks {
  const local = processLocks();
  return (key, work) =>
    local(key, async () => {
      const mutex = new Mutex(redis, `${prefix}:lock:${key}`, {
        lockTimeout: options.lockTimeoutMs,
        acquireTimeout: options.acquireTimeoutMs,
        refreshInterval: Math.min(TAKEOVER.renewMs, Math.floor(options.lockTimeoutMs / 3)),
        retryInterval: 5,
      });
      await mutex.acquire();
      try {
        return await work();
      } finally {
        await mutex.release().catch(() => undefined); // expired or Redis away: it lapses by itself
      }
    });
}
