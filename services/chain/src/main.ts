/**
 * `npm run start:chain`: the local chain node. LiteSVM (the real Solana runtime and SPL Token
 * program) with its state in DATA_DIR, served over Solana JSON-RPC on PORT (8899, like a validator),
 * so every process of the server topology shares one chain the way they would share a cluster; its
 * WebSocket (signature subscriptions) on the same port and, with WS_PORT (0: none), on that port too,
 * as a validator serves it on PORT + 1. Its
 * fixtures (fee payer, mint authority, treasury, mints), the local swap pools and the lending venue
 * (VENUE_APY_BPS a year) derive from CHAIN_SEED, which its clients set too. It keeps the history of
 * its newest CHAIN_HISTORY transactions (getSignaturesForAddress, getTransaction: the payment
 * watcher reads it), beside its state. Wiring only.
 */
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { LiteSvmChain, serveChainRpc } from '@tokenops/shared/adapters';
import { Env, createLogger, createMetrics, runProcess, seedLocalMarkets } from '@tokenops/shared/process';

runProcess('chain', async () => {
  const env = Env.of('chain');
  const logLevel = env.logLevel();
  const seed = env.text('CHAIN_SEED');
  const dataDir = resolve(env.text('DATA_DIR'));
  const { port, host } = env.listenAddress();
  const wsPort = env.int('WS_PORT');
  const slotMs = env.int('SLOT_MS');
  const venueApyBps = env.int('VENUE_APY_BPS');
  const history = env.int('CHAIN_HISTORY');
  env.check();

  const logger = createLogger(logLevel, 'chain');
  mkdirSync(dataDir, { recursive: true });
  const chain = await LiteSvmChain.open({ seed, stateFile: join(dataDir, 'chain.bin'), history });
  await seedLocalMarkets(chain, seed, venueApyBps);
  const metrics = createMetrics('chain');
  const node = await serveChainRpc(chain.node(), {
    port,
    ...(wsPort > 0 && { wsPort }),
    host,
    slotMs,
    ops: { registry: metrics.registry, dependencies: {} }, // it needs nothing but itself
  });
  logger.info('started', { rpc: node.url, data_dir: dataDir });
  return {
    logger,
    running: {
      stop: async () => {
        await node.close();
        await chain.close();
      },
    },
  };
});
