/**
 * The projector and the replay on the real PostgreSQL log and Redis: one projector leads, a replay
 * builds a new generation beside the live one and switches readers over while the log moves, the
 * projector follows onto it, and the equality check finds a key that was tampered with.
 */
import Redis from 'ioredis';
import { type EventStore } from '@tokenops/shared';
import { PostgresEventStore, RedisReadModelStore, serverSql } from '@tokenops/shared/adapters';
import { createLogger } from '@tokenops/shared/process';
import { DATABASE_URL, REDIS_URL, dropSchema, uniqueName } from '@tokenops/testing/servers';
import { keys } from './agent-views';
import { LiveViews, ViewGenerations } from './generations';
import { startProjector, type Projector } from './projector';
import { replay, verifyLive, type ReplayProgress } from './rebuild';
import { setTimeout as sleep } from 'node:timers/promises';

const MINT = 'So11111111111111111111111111111111111111112';
const tokens = [{ symbol: 'USDC', mint: MINT, decimals: 6 }];
const logger = createLogger('silent');

let schema: string;
let prefix: string;
let store: EventStore;
let redis: Redis;
const projectors: Projector[] = [];
const readers: LiveViews[] = [];
const openViews = async () => {
  const views = await LiveViews.open(new ViewGenerations(redis, prefix));
  readers.push(views);
  return views;
};

async function pay(agent: string, amount: string, n = 1): Promise<void> {
  await store.append(
    `payments-${agent}`,
    Array.from({ length: n }, () => ({
      type: 'payment.received',
      data: { agent_id: agent, mint: MINT, amount, from: 'test', tx_signature: 'sig', at: Date.now() },
    })),
    'any',
  );
}

async function balanceOf(views: LiveViews, agent: string): Promise<string | undefined> {
  return (await views.get<Record<string, string>>(keys.balance(agent)))?.[MINT];
}

async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (await check()) return;
    await sleep(25);
  }
  throw new Error(`timed out waiting for ${what}`);
}

beforeEach(async () => {
  schema = uniqueName('projector');
  prefix = uniqueName('projector');
  store = await PostgresEventStore.open(await serverSql({ connectionString: DATABASE_URL, schema, max: 4 }));
  redis = new Redis(REDIS_URL);
});

afterEach(async () => {
  await Promise.all(projectors.splice(0).map((p) => p.stop()));
  await Promise.all(readers.splice(0).map((v) => v.close()));
  await new RedisReadModelStore(redis, prefix).clear(); // every generation, the pointer, the leases
  await redis.quit();
  await store.close();
  await dropSchema(schema);
});

describe('projectors', () => {
  it('one of two leads; when it stops, the other takes over from the checkpoint', async () => {
    const a = startProjector({ store, redis, prefix, tokens, logger, leaseTtlMs: 600 });
    projectors.push(a);
    await until(async () => a.leading(), 'the first to lead');
    const b = startProjector({ store, redis, prefix, tokens, logger, leaseTtlMs: 600 });
    projectors.push(b);
    const views = await openViews();
    await pay('agent-1', '1.5', 10);
    await until(async () => (await balanceOf(views, 'agent-1')) === '15000000', 'the payments');
    expect(b.leading()).toBe(false);

    await a.stop();
    await until(async () => b.leading(), 'the standby to lead');
    await pay('agent-1', '1', 1);
    await until(async () => (await balanceOf(views, 'agent-1')) === '16000000', 'the next payment, once');
    expect((await verifyLive({ store, redis, prefix, tokens })).differences).toEqual([]);
  });
});

describe('replay', () => {
  it('switches readers to a rebuilt generation while the log moves, and the projector follows it', async () => {
    const projector = startProjector({ store, redis, prefix, tokens, logger });
    projectors.push(projector);
    const generations = new ViewGenerations(redis, prefix);
    const views = await openViews();
    for (let i = 0; i < 20; i++) await pay(`agent-${i % 4}`, '0.25', 50);
    await until(async () => (await balanceOf(views, 'agent-3')) === '62500000', 'the first payments');
    const before = await generations.live();

    let writing = true;
    const writer = (async () => {
      while (writing) await pay('agent-0', '0.01', 5);
    })();
    const phases = new Set<string>();
    const build: ReplayProgress[] = [];
    const report = await replay({
      store,
      redis,
      prefix,
      tokens,
      onProgress: (p) => {
        phases.add(p.phase);
        if (p.phase === 'build') build.push(p);
      },
    });
    writing = false;
    await writer;

    expect(report.replaced).toBe(before);
    expect(report.namespace).not.toBe(before);
    expect(report.differences).toEqual([]);
    expect(report.compared).toBeGreaterThan(4);
    expect([...phases]).toEqual(expect.arrayContaining(['build', 'load', 'catch-up', 'verify']));
    // The bar counts each event replayed, from 0 to all of them, and ends at the head it aimed for.
    expect(build.map((p) => p.events)).toEqual(Array.from({ length: report.events + 1 }, (_, i) => i));
    expect(report.events).toBeGreaterThanOrEqual(20);
    expect(build.at(-1)!.done).toBe(build.at(-1)!.total);
    expect(await generations.live()).toBe(report.namespace);
    expect(await generations.existing()).toEqual([report.namespace]); // the old one is dropped
    await until(async () => views.namespace === report.namespace, 'readers to follow');

    // The projector moved onto the new generation: a new payment shows there.
    const was = BigInt((await balanceOf(views, 'agent-2')) ?? '0');
    await pay('agent-2', '1');
    await until(
      async () => BigInt((await balanceOf(views, 'agent-2')) ?? '0') === was + 1_000_000n,
      'the projector',
    );
    expect((await verifyLive({ store, redis, prefix, tokens })).differences).toEqual([]);
  });

  it('the equality check names a key that differs from a replay of the log', async () => {
    const projector = startProjector({ store, redis, prefix, tokens, logger });
    projectors.push(projector);
    await pay('agent-9', '2', 3);
    const generations = new ViewGenerations(redis, prefix);
    await until(async () => (await generations.liveCheckpoint()) !== undefined, 'the projection');
    await until(
      async () => (await verifyLive({ store, redis, prefix, tokens })).differences.length === 0,
      'a clean check',
    );
    await redis.set(
      `${await generations.live()}:${keys.balance('agent-9')}`,
      JSON.stringify({ [MINT]: '1' }),
    );
    expect((await verifyLive({ store, redis, prefix, tokens })).differences).toEqual([
      keys.balance('agent-9'),
    ]);
  });
});
