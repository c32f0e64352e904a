/**
 * `npm run start:delivery`: a delivery worker of the server topology. Any number may run: each takes
 * delivery jobs from the BullMQ queue (signed HTTPS attempts, SSRF-guarded, retried with backoff);
 * one of them, holding the relay lease, turns the log's events into deliveries, and one, holding the
 * expiry lease, announces allow-list entries about to expire. Wiring only.
 */
import { KeyVault, type DeliveryJob } from '@tokenops/shared';
import { BullJobQueue, WebhookSender, whileLeader } from '@tokenops/shared/adapters';
import {
  Env,
  createLogger,
  createMetrics,
  observeAttempts,
  observeJobs,
  observeLease,
  watchRelayLag,
  watchQueueDepth,
  dependencyChecks,
  openDeliveryStore,
  openEventStore,
  openRedis,
  runProcess,
  serveOps,
  webhookSettings,
} from '@tokenops/shared/process';
import { startDeliveryWorkers, startExpiry, startRelay } from './index';
import { DELIVERY_QUEUE_RETRY, deliveryRetry } from './wiring';

runProcess('delivery', async () => {
  const env = Env.of('delivery');
  const logLevel = env.logLevel();
  const eventStore = env.eventStore();
  const redisConfig = env.redis();
  const kek = env.keyEncryptionKey();
  const deliveryDb = env.deliveryDatabase(eventStore);
  const hooks = webhookSettings(env);
  const { port, host } = env.listenAddress();
  env.check();

  const logger = createLogger(logLevel, 'delivery');
  if (hooks.allowedPrivateHosts.length > 0)
    logger.warn('WEBHOOK_ALLOWED_PRIVATE_HOSTS is set: webhooks may reach these private hosts', {
      hosts: hooks.allowedPrivateHosts,
    });
  const metrics = createMetrics('delivery');
  const store = await openEventStore(eventStore);
  const deliveries = await openDeliveryStore(deliveryDb);
  const redis = openRedis(redisConfig.url);
  const queue = new BullJobQueue<DeliveryJob>('deliver', {
    url: redisConfig.url,
    prefix: `${redisConfig.prefix}:bull`,
    retry: DELIVERY_QUEUE_RETRY,
  });
  const parts = {
    store,
    deliveries,
    queue,
    vault: new KeyVault(kek),
    transport: new WebhookSender({
      allowedPrivateHosts: hooks.allowedPrivateHosts,
      ...(hooks.ca && { ca: hooks.ca }),
    }),
    retry: deliveryRetry(hooks),
    now: () => Date.now(),
    observe: observeAttempts(logger, metrics),
  };
  const workers = startDeliveryWorkers(parts, hooks.concurrency, observeJobs(logger, metrics));
  const leader = (name: string, work: Parameters<typeof whileLeader>[0]['work']) =>
    whileLeader({
      redis,
      key: `${redisConfig.prefix}:${name}:lease`,
      onError: (err) => logger.error(`${name} stopped; resuming`, { error: String(err) }),
      onChange: observeLease(logger, name, metrics),
      work,
    });
  const relay = leader('webhook-relay', () => startRelay(parts));
  const stopDepth = watchQueueDepth(metrics, queue, 'deliver');
  const stopLag = watchRelayLag(metrics, 'webhook-relay', store, () => deliveries.relayCheckpoint());
  const expiry = leader('expiry', async () =>
    startExpiry(parts, (err) => logger.warn('expiry scheduler: will try again', { error: String(err) })),
  );

  const ops = await serveOps(port, host, {
    registry: metrics.registry,
    dependencies: dependencyChecks({ store, redis, deliveries }),
  });
  logger.info('started', { ops: ops.url, concurrency: hooks.concurrency });
  return {
    logger,
    running: {
      stop: async () => {
        stopDepth();
        stopLag();
        await relay.stop();
        await expiry.stop();
        await workers.close();
        await queue.close();
        await ops.close();
        await deliveries.close();
        await store.close();
        redis.disconnect();
      },
    },
  };
});
