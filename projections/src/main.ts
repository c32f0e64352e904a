/** `npm run start:projector`: the projector of the server topology. Wiring only. */
import {
  Env,
  createLogger,
  createMetrics,
  openEventStore,
  runProcess,
  serveOps,
  dependencyChecks,
  openRedis,
} from '@tokenops/shared/process';
import { startProjector } from './projector';

runProcess('projector', async () => {
  const env = Env.of('projector');
  const logLevel = env.logLevel();
  const eventStore = env.eventStore();
  const redisConfig = env.redis();
  const chain = env.chain({ rpc: false });
  const { port, host } = env.listenAddress();
  env.check();

  const logger = createLogger(logLevel, 'projector');
  const metrics = createMetrics('projector');
  const store = await openEventStore(eventStore);
  const redis = openRedis(redisConfig.url);
  const projector = startProjector({
    store,
    redis,
    prefix: redisConfig.prefix,
    tokens: chain.tokens,
    logger,
    metrics,
  });
  const ops = await serveOps(port, host, {
    registry: metrics.registry,
    dependencies: dependencyChecks({ store, redis }),
  });
  logger.info('started', { ops: ops.url, role: 'projector' });
  return {
    logger,
    running: {
      stop: async () => {
        await projector.stop();
        await ops.close();
        await store.close();
        redis.disconnect();
      },
    },
  };
});
