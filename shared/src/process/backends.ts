/** Opens the server adapters named by the configuration (the same ports the embedded default fills). */
import Redis, { type RedisOptions } from 'ioredis';
import { serverSql } from '../sql/sql';
import { PostgresEventStore } from '../event-store/postgres';
import { EventStoreDbEventStore } from '../event-store/eventstoredb';
import type { EventStore } from '../event-store/port';
import { RpcChain } from '../chain/rpc';
import { SqlDeliveryStore } from '../deliveries/sql';
import { createContext, type Context, type UrlPolicy } from '../application/context';
import { KeyVault } from '../application/credentials';
import type { Chain } from '../chain/port';
import type { DeliveryStore } from '../deliveries/port';
import type { ChainConfig, EventStoreConfig } from './env';
import { READINESS_TIMEOUT_MS, type Dependencies } from './readiness';
import { settingsFor } from './settings';
import { openMarkets } from './markets';
import type { AggregatorConfig } from './aggregator';
import { ComputeBudget } from '../chain/compute-budget';
import type { ComputeBudgetPolicy } from '../domain/priority-fee';

export async function openEventStore(config: EventStoreConfig): Promise<EventStore> {
  if (config.kind === 'eventstoredb') return EventStoreDbEventStore.connect(config.url);
  return PostgresEventStore.open(
    await serverSql({ connectionString: config.url, schema: config.schema, max: config.pool }),
  );
}

/** The delivery store of a server process (API or delivery worker): its own connection pool. */
export async function openDeliveryStore(config: { url: string; schema: string; pool: number }) {
  return SqlDeliveryStore.open(
    await serverSql({ connectionString: config.url, schema: config.schema, max: config.pool }),
    { owned: true },
  );
}

export function openChain(config: ChainConfig): RpcChain {
  if (config.kind === 'local') return RpcChain.local(config.urls, config.seed, config.rpc);
  return new RpcChain({
    url: config.urls,
    rpc: config.rpc,
    tokens: config.tokens,
    payer: config.payer,
    treasury: config.treasury,
  });
}

/** The write side of a server process (API or executor): the log, the chain, and the context over them. */
export async function openContext(config: {
  eventStore: EventStoreConfig;
  chain: ChainConfig;
  keyEncryptionKey: Uint8Array;
  outcomeTimeoutMs?: number;
  aggregator?: AggregatorConfig;
  /** x402 payments (API and executor): the guarded resource client and the network. */
  x402?: Context['x402'];
  /** The compute budget of what it sends (API: emergency sweeps; executor: spends). */
  computeBudget?: ComputeBudgetPolicy;
  /** What webhook URLs are held to (the API: it registers them). */
  webhookUrls?: UrlPolicy;
}): Promise<Context> {
  const chain = openChain(config.chain);
  return createContext({
    ...(config.x402 && { x402: config.x402 }),
    store: await openEventStore(config.eventStore),
    chain,
    vault: new KeyVault(config.keyEncryptionKey),
    settings: settingsFor(config.chain, config.outcomeTimeoutMs),
    ...(await openMarkets(chain, config.chain, config.aggregator)),
    ...(config.computeBudget && { computeBudget: new ComputeBudget(config.computeBudget) }),
    ...(config.webhookUrls && { webhookUrls: config.webhookUrls }),
  });
}

/** A Redis connection that reconnects by itself; while it is down, readiness and requests report it. */
export function openRedis(url: string, options: RedisOptions = { maxRetriesPerRequest: 2 }): Redis {
  const redis = new Redis(url, options);
  redis.on('error', () => undefined); // reconnecting; not a reason to crash
  return redis;
}

/**
 * The dependencies of a process, by the names `/readyz` reports: `eventstore` (its head
 * position is read), `redis` (connected, and a PING comes back; a disconnected client fails at once),
 * `chain` (a Solana JSON-RPC node at least answers `getHealth`, each reported under `nodes`; an
 * in-process chain is not asked) and
 * `webhook-database` (the delivery store reads the relay's checkpoint). Only those given are asked.
 */
export function dependencyChecks(parts: {
  store: EventStore;
  redis?: Redis;
  chain?: Chain;
  deliveries?: DeliveryStore;
}): Dependencies {
  const { store, redis, chain, deliveries } = parts;
  return {
    eventstore: () => store.headPosition(),
    ...(redis && {
      redis: async () => {
        if (redis.status !== 'ready') throw new Error(`redis is ${redis.status}`);
        if ((await redis.ping()) !== 'PONG') throw new Error('redis did not answer PONG');
      },
    }),
    // Each RPC node by host and port, healthy or set aside: ready while one is healthy (each node asked
    // within less than the check's own bound, so the report comes back with the answer).
    ...(chain instanceof RpcChain && {
      chain: async () => ({ report: await chain.health(READINESS_TIMEOUT_MS - 300) }),
    }),
    ...(deliveries && { 'webhook-database': () => deliveries.relayCheckpoint() }),
  };
}
