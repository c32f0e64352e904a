/**
 * `node bin/start.js replay` (`npm run replay`): rebuilds every read model from the log into a fresh
 * generation with a progress bar counting the events replayed and an ETA, switches the live pointer
 * to it, and checks it against the models it replaced. `--verify` only runs the equality check
 * against the live models. Wiring only.
 */
import { parseArgs } from 'node:util';
import Redis from 'ioredis';
import { Env, openEventStore, runProcess } from '@tokenops/shared/process';
import { replayProgressBar } from './progress';
import { replay, verifyLive } from './rebuild';

runProcess('replay', async () => {
  const { values } = parseArgs({ options: { verify: { type: 'boolean', default: false } } });
  const env = Env.of('replay');
  const eventStore = env.eventStore();
  const redisConfig = env.redis();
  const chain = env.chain({ rpc: false });
  env.check();
  const store = await openEventStore(eventStore);
  const redis = new Redis(redisConfig.url);
  const common = { store, redis, prefix: redisConfig.prefix, tokens: chain.tokens };
  let code = 0;
  try {
    if (values.verify) {
      const result = await verifyLive(common);
      console.log(
        result.differences.length === 0
          ? `live read models (${result.namespace}) equal a replay of the log: ${result.compared} keys`
          : `live read models (${result.namespace}) differ from a replay at: ${result.differences.join(', ')}`,
      );
      code = result.differences.length === 0 ? 0 : 1;
    } else {
      const bar = replayProgressBar();
      const report = await replay({ ...common, onProgress: bar.onProgress }).finally(bar.stop);
      console.log(
        `replayed ${report.events} events into ${report.namespace} in ${report.buildMs} ms and switched over from ${report.replaced}`,
      );
      console.log(
        report.differences.length === 0
          ? `check: the rebuilt models equal the replaced ones (${report.compared} keys)`
          : `check FAILED: keys that differ: ${report.differences.join(', ')}`,
      );
      code = report.differences.length === 0 ? 0 : 1;
    }
  } finally {
    await store.close();
    redis.disconnect();
  }
  process.exit(code);
});
