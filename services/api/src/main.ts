/**
 * `npm start`: the whole service on its embedded default. Wiring only. It starts and stops as every
 * process does (shared/src/process/lifecycle.ts): SIGTERM or SIGINT stop it gracefully within the
 * grace bound, a second signal exits at once, a configuration problem exits 2.
 */
import { mkdirSync } from 'node:fs';
import { readConfig } from './config';
import { demoInstructions, ensureDemo, startDemoResource, type DemoResource } from './demo';
import { localCertificates } from '@tokenops/x402-local';
import { startEmbedded } from './embedded';
import { createLogger, runProcess } from '@tokenops/shared/process';

runProcess('embedded', async () => {
  const config = readConfig();
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
    ...(config.operatorWallets && { operatorWallets: config.operatorWallets }),
    logger,
    outcomeTimeoutMs: config.outcomeTimeoutMs,
    rateLimitPerMinute: config.rateLimitPerMinute,
    unauthenticatedRateLimitPerMinute: config.edge.unauthenticatedPerMinute,
    publicRateLimitPerMinute: config.edge.publicPerMinute,
    signInRateLimitPerMinute: config.edge.signInPerMinute,
    operatorRateLimitPerMinute: config.edge.operatorPerMinute,
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
  return {
    logger,
    running: {
      stop: async () => {
        await resource?.close();
        await service.close();
      },
    },
  };
});
