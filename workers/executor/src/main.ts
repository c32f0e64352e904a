/**
 * `npm run start:executor`: an executor of the server topology. Any number may run: each takes jobs
 * from the BullMQ queue (concurrency, deduplication by intent id, stalled jobs of a dead executor
 * handed back); one of them, holding the relay lease, also turns accepted intents in the log into
 * jobs, and one, holding the payment watcher's lease, records payments into agent wallets
 * (`payment.received`) every PAYMENT_WATCH_INTERVAL_MS. A job retries EXECUTOR_RETRY_ATTEMPTS times;
 * one that died because the chain did not answer runs again once it answers (recover.ts, every
 * CHAIN_RECOVERY_INTERVAL_MS). Wiring only.
 */
import { BullJobQueue, RpcChain, RedisReadModelStore, whileLeader } from '@tokenops/shared/adapters';
import {
  Env,
  createLogger,
  createMetrics,
  watchQueueDepth,
  watchRpcNodes,
  openContext,
  runProcess,
  serveOps,
  dependencyChecks,
  openRedis,
  observeJobs,
  observeOutcomes,
  observeLease,
  watchRelayLag,
  aggregatorConfig,
  outboundGuard,
  x402Context,
  x402Network,
} from '@tokenops/shared/process';
import { redisLocks } from './locks';
import { Executor, type ExecuteJob } from './execute';
import { RELAY, runLater, startRelay } from './relay';
import { watchPayments } from './payments';
import { recoverChainWaits, waitsOnChain } from './recover';
import { executorWiring } from './wiring';

runProcess('executor', async () => {
  const env = Env.of('executor');
  const logLevel = env.logLevel();
  const eventStore = env.eventStore();
  const redisConfig = env.redis();
  const chainConfig = env.chain({ rpc: true });
  const kek = env.keyEncryptionKey();
  // Up to 5 s (TAKEOVER.maxJobLockMs), so a dead executor's jobs move on within the runbook's 10 s.
  const lockMs = env.int('EXECUTOR_LOCK_MS');
  const recoveryMs = env.int('CHAIN_RECOVERY_INTERVAL_MS');
  const wiring = executorWiring(env);
  const { port, host } = env.listenAddress();
  const aggregator = aggregatorConfig(env);
  const guard = outboundGuard(env);
  const network = x402Network(env);
  env.check();

  const logger = createLogger(logLevel, 'executor');
  const metrics = createMetrics('executor');
  const ctx = await openContext({
    eventStore,
    chain: chainConfig,
    keyEncryptionKey: kek,
    aggregator,
    x402: x402Context(guard, network),
    computeBudget: wiring.computeBudget,
  });
  const { store } = ctx;
  const redis = openRedis(redisConfig.url);
  const queue = new BullJobQueue<ExecuteJob>('execute', {
    url: redisConfig.url,
    prefix: `${redisConfig.prefix}:bull`,
    retry: wiring.retry,
  });

  const executor = new Executor(
    ctx,
    observeOutcomes(metrics),
    redisLocks(redis, redisConfig.prefix),
    runLater(queue),
  );
  const worker = queue.process((job) => executor.execute(job.data), {
    concurrency: wiring.concurrency,
    lockMs,
    // Jobs dead because the chain did not answer are put back by the chain recovery (below), when it runs.
    observe: observeJobs(logger, metrics, ctx.chain instanceof RpcChain ? waitsOnChain : undefined),
  });
  const relay = whileLeader({
    redis,
    key: `${redisConfig.prefix}:${RELAY}:lease`,
    onError: (err) => logger.error('relay stopped; resuming from its checkpoint', { error: String(err) }),
    onChange: observeLease(logger, RELAY, metrics),
    work: (lease) =>
      startRelay(
        store,
        new RedisReadModelStore(redis, `${redisConfig.prefix}:${RELAY}`, [lease.guard]),
        queue,
      ),
  });
  const relayCheckpoints = new RedisReadModelStore(redis, `${redisConfig.prefix}:${RELAY}`);
  const stopLag = watchRelayLag(metrics, RELAY, store, () => relayCheckpoints.checkpoint(RELAY));

  const chain = ctx.chain;
  const payments =
    chain instanceof RpcChain
      ? whileLeader({
          redis,
          key: `${redisConfig.prefix}:payment-watcher:lease`,
          onError: (err) => logger.error('payment watcher stopped; starting again', { error: String(err) }),
          onChange: observeLease(logger, 'payment-watcher', metrics),
          work: async () => watchPayments(ctx, chain, logger, wiring.payments),
        })
      : undefined;

  const stopDepth = watchQueueDepth(metrics, queue, 'execute');
  const chainRpc = ctx.chain;
  const stopNodes = chainRpc instanceof RpcChain ? watchRpcNodes(metrics, chainRpc.nodes) : undefined;
  const recovery =
    chainRpc instanceof RpcChain
      ? recoverChainWaits(queue, {
          intervalMs: recoveryMs,
          chainAnswers: () => chainRpc.health(2_000),
          onWaiting: (n) => metrics.waitingOnChain.set(n),
          onRetried: (jobs) =>
            logger.info('intents that waited on the chain run again', { jobs: jobs.length }),
          onError: (err) => logger.warn('intents waiting on the chain not looked at', { error: String(err) }),
        })
      : undefined;

  const ops = await serveOps(port, host, {
    registry: metrics.registry,
    dependencies: dependencyChecks({ store, redis, chain: ctx.chain }),
  });
  logger.info('started', { ops: ops.url, concurrency: wiring.concurrency });
  return {
    logger,
    running: {
      stop: async () => {
        stopDepth();
        stopNodes?.();
        recovery?.stop();
        stopLag();
        await relay.stop();
        await payments?.stop();
        await worker.close(); // finishes the jobs in hand; BullMQ releases the rest
        await queue.close();
        await ops.close();
        await store.close();
        redis.disconnect();
      },
    },
  };
});
