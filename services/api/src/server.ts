/**
 * `npm run start:api`: a command API instance of the server topology. Any number may run behind a
 * load balancer: they share the log (PostgreSQL or EventStoreDB), the read models and the rate limit
 * (Redis); each follows the log for the outcomes of the intents it waits on, whichever executor
 * wrote them. Decisions are taken on the write model with optimistic concurrency, so limits and
 * idempotency hold across instances. Wiring only.
 */
import { createServer } from 'node:http';
import { OutcomeWaiter } from '@tokenops/shared';
import { RpcChain, systemResolver } from '@tokenops/shared/adapters';
import {
  Env,
  createLogger,
  createMetrics,
  watchRpcNodes,
  listen,
  openContext,
  runProcess,
  serveOps,
  dependencyChecks,
  openRedis,
  openDeliveryStore,
  OpenStreams,
  aggregatorConfig,
  computeBudgetPolicy,
  webhookSettings,
  x402Context,
  x402Network,
} from '@tokenops/shared/process';
import { LiveViews, ViewGenerations } from '@tokenops/projections';
import { createApp } from './app';
import { readEdgeSettings } from './http/edge-settings';
import { ClientRateLimit, sharedLimits } from './http/rate-limit';
import { OperatorAuth, usedChallengesIn } from './operator/sign-in/auth';
import { startProposals } from './operator/governance/scheduler';

runProcess('api', async () => {
  const env = Env.of('api');
  const logLevel = env.logLevel();
  const eventStore = env.eventStore();
  const redisConfig = env.redis();
  const chainConfig = env.chain({ rpc: true });
  const kek = env.keyEncryptionKey();
  const jwtSecret = env.secret('JWT_SECRET');
  const wallets = env.wallets('ORCHESTRATOR_WALLETS');
  const { port, host } = env.listenAddress();
  const outcomeTimeoutMs = env.int('OUTCOME_TIMEOUT_MS');
  const perMinute = env.int('RATE_LIMIT_PER_MINUTE');
  const edge = readEdgeSettings(env);
  // Tests: every answer is checked against the contract schema before it leaves (a mismatch is a 500).
  const checkResponses = env.flag('CHECK_RESPONSES');
  const aggregator = aggregatorConfig(env);
  const deliveryDb = env.deliveryDatabase(eventStore);
  const hooks = webhookSettings(env);
  const network = x402Network(env);
  // The emergency sweeps this API sends carry the compute budget the executor's spends carry.
  const computeBudget = computeBudgetPolicy(env);
  env.check();

  const logger = createLogger(logLevel, 'api');
  if (!wallets) logger.warn('ORCHESTRATOR_WALLETS is not set: any wallet may create groups');
  if (!edge.metricsListener && !edge.metricsToken)
    logger.warn('metrics are not served: set METRICS_PORT (a port of their own) or METRICS_TOKEN');
  const metrics = createMetrics('api');
  const ctx = await openContext({
    eventStore,
    chain: chainConfig,
    keyEncryptionKey: kek,
    outcomeTimeoutMs,
    aggregator,
    computeBudget,
    webhookUrls: { allowedPrivateHosts: hooks.allowedPrivateHosts, resolve: systemResolver },
    x402: x402Context(
      { allowedPrivateHosts: hooks.allowedPrivateHosts, ...(hooks.ca && { ca: hooks.ca }) },
      network,
    ),
  });
  const { store } = ctx;
  if (ctx.chain instanceof RpcChain) watchRpcNodes(metrics, ctx.chain.nodes); // sampled until the process ends
  // Requests fail at once while Redis is down (503), rather than queue.
  const redis = openRedis(redisConfig.url, { maxRetriesPerRequest: 1, enableOfflineQueue: false });
  await new Promise<void>((resolve) => (redis.status === 'ready' ? resolve() : redis.once('ready', resolve)));
  const views = await LiveViews.open(new ViewGenerations(redis, redisConfig.prefix));
  const waiter = new OutcomeWaiter(store);
  await waiter.start();
  const proposals = startProposals(ctx, logger);
  const deliveries = await openDeliveryStore(deliveryDb);
  const dependencies = dependencyChecks({ store, redis, chain: ctx.chain, deliveries });

  // The streamed answers (the console's event streams, NDJSON audit reads), ended by a stop.
  const streams = new OpenStreams();
  const app = createApp({
    ctx,
    views,
    waiter,
    operators: new OperatorAuth({
      secret: jwtSecret,
      used: usedChallengesIn(store),
      ...(wallets && { allowedCreators: wallets }),
    }),
    limits: sharedLimits(redis, redisConfig.prefix, {
      agent: perMinute,
      public: edge.publicPerMinute,
      signIn: edge.signInPerMinute,
      operator: edge.operatorPerMinute,
    }),
    clientLimit: ClientRateLimit.shared(redis, redisConfig.prefix, edge.unauthenticatedPerMinute),
    metrics,
    deliveries,
    ...(edge.metricsToken && { metricsToken: edge.metricsToken }),
    trustProxyHops: edge.trustProxyHops,
    viewWaitMs: edge.viewWaitMs,
    logger,
    checkResponses,
    dependencies,
    streams,
  });
  const http = await listen(createServer(app), port, host, { streams });
  // The metrics (with health and readiness) on a port of their own, apart from the API's.
  const ops = edge.metricsListener
    ? await serveOps(edge.metricsListener.port, edge.metricsListener.host, {
        registry: metrics.registry,
        dependencies,
      })
    : undefined;
  logger.info('listening', { url: http.url, ...(ops && { metrics_url: `${ops.url}/metrics` }) });
  return {
    logger,
    running: {
      // Stops taking connections, lets requests in flight (and their waits for outcomes) finish.
      stop: async () => {
        await http.close();
        await ops?.close();
        await waiter.stop();
        await proposals.stop();
        await views.close();
        await deliveries.close();
        await store.close();
        redis.disconnect();
      },
    },
  };
});
