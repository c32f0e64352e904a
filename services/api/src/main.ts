/** `npm start`: the whole service on its embedded default. Wiring only. */
import { mkdirSync } from 'node:fs';
import { readConfig } from './config';
import { demoInstructions, ensureDemo, startDemoResource, type DemoResource } from './demo';
import { localCertificates } from '@tokenops/x402-local';
import { startEmbedded } from './embedded';
import { ConfigError, createLogger, startTracing } from '@tokenops/shared/process';

async function main(): Promise<void> {
  let config;
  try {
    config = readConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      process.exit(2);
    }
    throw err;
  }
  // As every process does (shared/src/process/lifecycle.ts): tracing when OTEL_EXPORTER_OTLP_ENDPOINT is set.
  const tracing = await startTracing('tokenops-embedded');
  const logger = createLogger(config.logLevel);
  for (const note of config.notes) logger.warn(note);
  mkdirSync(config.dataDir, { recursive: true });
  // The demo's x402 resource: its certificate now, its origin once it listens (the only one allowed).
  const demoTls = config.demo ? await localCertificates({ addresses: ['127.0.0.1'] }) : undefined;
  const demoOrigins = new Set<string>();
  const service = await startEmbedded({
    dataDir: config.dataDir,
    host: config.host,
    port: config.port,
    keyEncryptionKey: config.keyEncryptionKey,
    jwtSecret: config.jwtSecret,
    ...(config.orchestratorWallets && { orchestratorWallets: config.orchestratorWallets }),
    logger,
    outcomeTimeoutMs: config.outcomeTimeoutMs,
    rateLimitPerMinute: config.rateLimitPerMinute,
    unauthenticatedRateLimitPerMinute: config.edge.unauthenticatedPerMinute,
    ...(config.edge.metricsListener && { metricsListener: config.edge.metricsListener }),
    ...(config.edge.metricsToken && { metricsToken: config.edge.metricsToken }),
    trustProxyHops: config.edge.trustProxyHops,
    viewWaitMs: config.edge.viewWaitMs,
    webhooks: config.webhooks,
    executor: config.executor,
    chainRpcPort: config.chainRpcPort,
    slotMs: config.slotMs,
    x402Network: config.x402Network,
    ...(demoTls && { x402Guard: { ca: demoTls.ca, allowedOrigins: demoOrigins } }),
  });
  logger.info('listening', {
    url: service.url,
    ...(service.chainRpcUrl && { chain_rpc_url: service.chainRpcUrl }),
    data_dir: config.dataDir,
    ...(service.metricsUrl && { metrics_url: service.metricsUrl }),
  });
  let resource: DemoResource | undefined;
  if (config.demo) {
    const { demo, created, invitation } = await ensureDemo(service.ctx, config.dataDir);
    if (demoTls && demo.x402_payee && service.chainRpcUrl)
      resource = await startDemoResource(service.ctx, service.chainRpcUrl, demo.x402_payee, demoTls, (o) =>
        demoOrigins.add(o),
      );
    console.log(
      demoInstructions(service.url, demo, created, service.ctx.chain.tokens, invitation, resource?.url),
    );
  }
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info('stopping', { signal });
    await resource?.close();
    await service.close();
    await tracing.shutdown();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
