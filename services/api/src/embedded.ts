/**
 * The whole service in one process on its embedded default: PGlite in a data folder, in-process read
 * models (rebuilt from the log at start) and job queue, LiteSVM with its state in the same folder.
 * The parts are the processes of the server topology (command API, projection, relay and executor,
 * outcome waiter), composed here through the same ports. Wiring only.
 */
import { createServer } from 'node:http';
import { join } from 'node:path';
import {
  ComputeBudget,
  KeyVault,
  type DeliveryJob,
  OutcomeWaiter,
  createContext,
  type Context,
  type ReadModelStore,
  type Settings,
} from '@tokenops/shared';
import {
  LiteSvmChain,
  LogFanout,
  MemoryJobQueue,
  MemoryReadModelStore,
  SqlDeliveryStore,
  WebhookSender,
  serveChainRpc,
  systemResolver,
  type GuardOptions,
  type Resolver,
  PostgresEventStore,
  embeddedSql,
  embeddedSqlOnThread,
  type Sql,
} from '@tokenops/shared/adapters';
import {
  createMetrics,
  dependencyChecks,
  observeAttempts,
  observeJobs,
  observeOutcomes,
  settingsFor,
  listen,
  openMarkets,
  seedLocalMarkets,
  serveOps,
  OpenStreams,
  SETTINGS,
  x402Context,
  type WebhookSettings,
  webhookSettings,
} from '@tokenops/shared/process';
import {
  Executor,
  executorWiring,
  runLater,
  startRelay,
  watchPayments,
  type ExecuteJob,
  type ExecutorWiring,
} from '@tokenops/executor';
import {
  DELIVERY_QUEUE_RETRY,
  deliveryRetry,
  startDeliveryWorkers,
  startExpiry,
  startRelay as startWebhookRelay,
} from '@tokenops/delivery';
import { startProposals } from './operator/governance/scheduler';
import { startProjection } from '@tokenops/projections';
import { createApp } from './app';
import type { Logger } from '@tokenops/shared/process';
import { OperatorAuth, usedChallengesIn } from './operator/sign-in/auth';
import { ClientRateLimit, inProcessLimits } from './http/rate-limit';
import { VIEW_WAIT_MS, type EdgeSettings } from './http/edge-settings';

export interface EmbeddedOptions {
  /** Where the log and the chain live; in memory when absent (tests). */
  dataDir?: string;
  /** Without a data folder: the files of an empty database cluster to start the log from (faster than a new one). */
  databaseTemplate?: Blob;
  /**
   * PGlite on a worker thread of its own (true when absent): the database's work on the second core.
   * In this thread it starts with less CPU (about 1.3 s from a template against 1.8 s): what test
   * worlds started by the hundred choose (packages/testing harness.ts).
   */
  databaseThread?: boolean;
  host?: string;
  port?: number;
  keyEncryptionKey: Uint8Array;
  jwtSecret: Uint8Array;
  /** Wallets that may create groups; any when absent. */
  operatorWallets?: ReadonlySet<string>;
  logger: Logger;
  checkResponses?: boolean;
  outcomeTimeoutMs?: number;
  rateLimitPerMinute?: number;
  /** Failed authentications per client address and minute (30 when absent). */
  unauthenticatedRateLimitPerMinute?: number;
  /** Requests per client address and minute to the public reads (the catalogue's default when absent). */
  publicRateLimitPerMinute?: number;
  /** Requests per client address and minute to the sign-in routes (the catalogue's default when absent). */
  signInRateLimitPerMinute?: number;
  /** Requests per signed-in wallet and minute to the operator routes (the catalogue's default when absent). */
  operatorRateLimitPerMinute?: number;
  /** `/metrics` on a port of its own, and/or on the API's port behind a token (neither when absent). */
  metricsListener?: EdgeSettings['metricsListener'];
  metricsToken?: string;
  trustProxyHops?: number;
  /** How long an answer from the agent views waits for them to show its write (VIEW_WAIT_MS, 2 s when absent). */
  viewWaitMs?: number;
  /** The executor's retries and payment watcher (the catalogue's defaults when absent). */
  executor?: ExecutorWiring;
  /** Webhook deliveries (WEBHOOK_* settings; the catalogue's defaults for those absent); a resolver in tests. */
  webhooks?: Partial<WebhookSettings> & { resolve?: Resolver };
  /** The chain served over Solana JSON-RPC on this port (0: any free one) of 127.0.0.1; not served when absent. */
  chainRpcPort?: number;
  /**
   * A slot passes on the chain every this many milliseconds, each with a new blockhash valid for 150
   * (what lets a signed x402 payment held elsewhere expire); slots pass only when asked when absent.
   */
  slotMs?: number;
  /** The network x402 payments are made on (devnet's CAIP-2 id when absent). */
  x402Network?: string;
  /** What x402 requests may reach besides the webhooks' guard allows: the demo resource's origin and CA. */
  x402Guard?: Pick<GuardOptions, 'allowedOrigins' | 'ca'>;
  now?: () => number;
}

export interface Embedded {
  url: string;
  /** Where `/metrics` is served apart from the API, when it is. */
  metricsUrl?: string;
  /** The chain's Solana JSON-RPC URL, when it is served (chainRpcPort). */
  chainRpcUrl?: string;
  ctx: Context;
  /** The agent views (read models) the state endpoints answer from. */
  views: ReadModelStore;
  /** The SQL of the event log (PGlite): what someone with access to the data folder could change. */
  sql: Sql;
  /** Stops the projection, as a projector that died would: the views stay where they are (tests). */
  stopProjection(): Promise<void>;
  close(): Promise<void>;
}

export const CHAIN_SEED = 'local-chain';
/** How many of its newest transactions the embedded chain keeps for reconciliation (as the chain node's CHAIN_HISTORY). */
export const EMBEDDED_CHAIN_HISTORY = 50_000;

export const defaultSettings = (outcomeTimeoutMs = 30_000): Settings =>
  settingsFor({ kind: 'local', seed: CHAIN_SEED }, outcomeTimeoutMs);

export async function startEmbedded(options: EmbeddedOptions): Promise<Embedded> {
  const { logger } = options;
  // PGlite on a thread of its own: the log's SQL runs on another core than the HTTP server.
  const open = options.databaseThread === false ? embeddedSql : embeddedSqlOnThread;
  const sql = options.dataDir
    ? await open(join(options.dataDir, 'events'))
    : await open(undefined, options.databaseTemplate);
  // This process is the log's only writer: what it appends is handed to its subscribers, not read back.
  const log = await PostgresEventStore.open(sql, { onlyWriter: true });
  const deliveries = await SqlDeliveryStore.open(sql);
  // One reading of the log, shared by the projection, the relay and the outcome waiter.
  const store = new LogFanout(log).view();
  // The chain keeps its newest transactions with their balances before and after, as the chain node
  // does: reconciliation (GET .../reconciliation) reads them.
  const chain = await LiteSvmChain.open({
    seed: CHAIN_SEED,
    history: EMBEDDED_CHAIN_HISTORY,
    ...(options.slotMs !== undefined && { slotMs: options.slotMs }),
    ...(options.dataDir && { stateFile: join(options.dataDir, 'chain.bin') }),
  });
  // The local pools and lending venue live on the same chain, created at its first start.
  await seedLocalMarkets(chain, CHAIN_SEED);
  // x402 resources are reached through the webhooks' SSRF guard and settings.
  const hooks = { ...webhookSettings(), ...options.webhooks };
  const x402 = x402Context(
    {
      allowedPrivateHosts: hooks.allowedPrivateHosts,
      ...(options.x402Guard?.allowedOrigins && { allowedOrigins: options.x402Guard.allowedOrigins }),
      ...((hooks.ca || options.x402Guard?.ca) && {
        ca: [hooks.ca, options.x402Guard?.ca].filter(Boolean).join('\n'),
      }),
      ...(hooks.resolve && { resolve: hooks.resolve }),
    },
    options.x402Network,
  );
  // The chain over Solana JSON-RPC, as the chain node serves it: what an x402 facilitator settles on.
  const chainNode =
    options.chainRpcPort === undefined
      ? undefined
      : // On loopback whatever HOST says: like a local validator's, it takes any transaction and airdrop.
        await serveChainRpc(chain.node(), { port: options.chainRpcPort, host: '127.0.0.1' });
  const wiring = options.executor ?? executorWiring();
  const ctx = createContext({
    store,
    chain,
    x402,
    ...(await openMarkets(chain, { kind: 'local', seed: CHAIN_SEED })),
    vault: new KeyVault(options.keyEncryptionKey),
    settings: defaultSettings(options.outcomeTimeoutMs),
    singleWriter: true,
    ...(options.now && { now: options.now }),
    // One compute budget for what it sends: the executor's spends and the emergency sweeps.
    computeBudget: new ComputeBudget(wiring.computeBudget),
    // Which webhook URLs registration accepts (WEBHOOK_ALLOWED_PRIVATE_HOSTS; a resolver in tests).
    webhookUrls: { allowedPrivateHosts: hooks.allowedPrivateHosts, resolve: hooks.resolve ?? systemResolver },
  });

  // Projections: rebuilt from the whole log into memory, then live; read on every request, kept frozen.
  const views = new MemoryReadModelStore('views', 'frozen');
  const projection = await startProjection(store, views, chain.tokens);
  await projection.caughtUp;

  // Executor: a relay from the log feeds the queue (an accepted intent survives any crash: on start
  // the relay walks the log again, and the executor skips what has settled).
  const queue = new MemoryJobQueue<ExecuteJob>('execute', wiring.retry);
  const metrics = createMetrics('embedded');
  const executor = new Executor(ctx, observeOutcomes(metrics), undefined, runLater(queue));
  const worker = queue.process((job) => executor.execute(job.data), {
    concurrency: wiring.concurrency,
    observe: observeJobs(logger, metrics),
  });
  const relay = await startRelay(store, new MemoryReadModelStore('relay'), queue);

  // Payments: what outsiders send into agent wallets is recorded (`payment.received`), as the
  // executor's watcher does on the server topology; the chain tells which accounts a transaction touched.
  const payments = watchPayments(ctx, chain, logger, wiring.payments);
  payments.done.catch((err: unknown) => logger.error('payment watcher stopped', { error: String(err) }));

  // Webhooks: the relay derives deliveries from the log, the workers send them, the scheduler announces
  // allow-list entries about to expire.
  if (hooks.allowedPrivateHosts.length)
    logger.warn('WEBHOOK_ALLOWED_PRIVATE_HOSTS is set: webhooks may reach these private hosts', {
      hosts: hooks.allowedPrivateHosts,
    });
  const deliveryQueue = new MemoryJobQueue<DeliveryJob>('deliver', DELIVERY_QUEUE_RETRY);
  const deliveryParts = {
    store,
    deliveries,
    queue: deliveryQueue,
    vault: ctx.vault,
    transport: new WebhookSender({
      allowedPrivateHosts: hooks.allowedPrivateHosts,
      ...(hooks.ca && { ca: hooks.ca }),
      ...(hooks.resolve && { resolve: hooks.resolve }),
    }),
    retry: deliveryRetry(hooks),
    now: () => ctx.now(),
    observe: observeAttempts(logger, metrics),
  };
  const webhookRelay = await startWebhookRelay(deliveryParts);
  const deliveryWorkers = startDeliveryWorkers(
    deliveryParts,
    hooks.concurrency,
    observeJobs(logger, metrics),
  );
  const expiry = startExpiry({ store, now: () => ctx.now(), repositories: ctx }, (err) =>
    logger.warn('expiry scheduler: will try again', { error: String(err) }),
  );
  const proposals = startProposals(ctx, logger);

  const waiter = new OutcomeWaiter(store);
  await waiter.start();

  const operators = new OperatorAuth({
    secret: options.jwtSecret,
    used: usedChallengesIn(store, ctx.now),
    ...(options.operatorWallets && { allowedCreators: options.operatorWallets }),
  });
  if (!options.operatorWallets)
    logger.warn('ORCHESTRATOR_WALLETS is not set: any wallet may create groups (embedded default)');

  // Everything but the log lives in this process.
  const dependencies = dependencyChecks({ store });
  // The streamed answers (the console's event streams, NDJSON audit reads), ended by a stop.
  const streams = new OpenStreams();
  const app = createApp({
    ctx,
    views,
    waiter,
    operators,
    limits: inProcessLimits({
      agent: options.rateLimitPerMinute ?? SETTINGS.RATE_LIMIT_PER_MINUTE.default,
      public: options.publicRateLimitPerMinute ?? SETTINGS.PUBLIC_RATE_LIMIT_PER_MINUTE.default,
      signIn: options.signInRateLimitPerMinute ?? SETTINGS.SIGN_IN_RATE_LIMIT_PER_MINUTE.default,
      operator: options.operatorRateLimitPerMinute ?? SETTINGS.OPERATOR_RATE_LIMIT_PER_MINUTE.default,
    }),
    clientLimit: ClientRateLimit.inProcess(options.unauthenticatedRateLimitPerMinute ?? 30),
    metrics,
    deliveries,
    ...(options.metricsToken && { metricsToken: options.metricsToken }),
    ...(options.trustProxyHops && { trustProxyHops: options.trustProxyHops }),
    viewWaitMs: options.viewWaitMs ?? VIEW_WAIT_MS,
    logger,
    checkResponses: options.checkResponses ?? false,
    dependencies,
    streams,
  });
  const http = await listen(createServer(app), options.port ?? 8080, options.host ?? '127.0.0.1', {
    streams,
  });
  const ops = options.metricsListener
    ? await serveOps(options.metricsListener.port, options.metricsListener.host, {
        registry: metrics.registry,
        dependencies,
      })
    : undefined;

  return {
    url: http.url,
    ...(ops && { metricsUrl: `${ops.url}/metrics` }),
    ...(chainNode && { chainRpcUrl: chainNode.url }),
    ctx,
    views,
    sql,
    stopProjection: () => projection.subscription.stop(),
    close: async () => {
      await http.close();
      await ops?.close();
      await relay.stop();
      await payments.stop();
      await worker.close();
      await queue.close();
      await expiry.stop();
      await proposals.stop();
      await webhookRelay.stop();
      await deliveryWorkers.close();
      await deliveryQueue.close();
      await x402.close();
      await waiter.stop();
      await projection.subscription.stop();
      await store.close();
      await chainNode?.close();
      await chain.close();
    },
  };
}
