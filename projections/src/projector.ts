/**
 * The projector of the server topology: keeps the live generation of the Redis read models up to
 * date from the log. Any number may run; one holds the lease and projects, the others stand by and
 * take over within the lease's time to live. Every commit carries the checkpoint and two guards (the
 * lease, the live generation), so a projector that lost its lease, or whose generation a replay
 * replaced, cannot write: it starts over from the live generation's checkpoint.
 */
import type Redis from 'ioredis';
import { type EventStore, type Token } from '@tokenops/shared';
import { FencedOut, RedisReadModelStore, whileLeader } from '@tokenops/shared/adapters';
import { observeLease, type Logger, type Metrics } from '@tokenops/shared/process';
import { PROJECTION } from './agent-views';
import { ViewGenerations } from './generations';
import { startProjection } from './runner';

export interface Projector {
  leading(): boolean;
  stop(): Promise<void>;
}

export function startProjector(options: {
  store: EventStore;
  redis: Redis;
  prefix: string;
  tokens: readonly Token[];
  logger: Logger;
  metrics?: Metrics;
  leaseTtlMs?: number;
}): Projector {
  const { store, redis, logger } = options;
  const generations = new ViewGenerations(redis, options.prefix);
  const leadership = whileLeader({
    redis,
    key: `${options.prefix}:views:lease`,
    ...(options.leaseTtlMs && { ttlMs: options.leaseTtlMs }),
    onChange: observeLease(logger, 'projector', options.metrics),
    onError: (err) => {
      if (err instanceof FencedOut)
        logger.info('projection moved to the live generation', { from: err.namespace });
      else logger.error('projection stopped; resuming from its checkpoint', { error: String(err) });
    },
    work: async (lease) => {
      const namespace = await generations.live();
      const views = new RedisReadModelStore(redis, namespace, [
        lease.guard,
        generations.liveGuard(namespace),
      ]);
      const runner = await startProjection(store, views, options.tokens);
      logger.info('projecting', { namespace });
      return runner.subscription;
    },
  });

  // Lag: how far the live generation is behind the head of the log.
  let movedAt = Date.now();
  let last: bigint | undefined;
  const lag = setInterval(() => {
    void (async () => {
      const [head, at] = await Promise.all([store.headPosition(), generations.liveCheckpoint()]);
      const behind = head.prepare - (at?.prepare ?? 0n);
      if (at?.prepare !== last) {
        last = at?.prepare;
        movedAt = Date.now();
      }
      options.metrics?.projectionLag.set({ projection: PROJECTION }, Number(behind > 0n ? behind : 0n));
      options.metrics?.projectionStalled.set(
        { projection: PROJECTION },
        behind > 0n ? (Date.now() - movedAt) / 1000 : 0,
      );
    })().catch(() => undefined);
  }, 1_000);
  lag.unref();

  return {
    leading: leadership.leading,
    stop: async () => {
      clearInterval(lag);
      await leadership.stop();
    },
  };
}
