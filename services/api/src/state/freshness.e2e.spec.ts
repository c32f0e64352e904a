/**
 * Read your writes (state/freshness.ts): a read right after a write shows it. A spend answers from its
 * outcome without waiting for the views; the read after it waits for the agent's own last write. An
 * operator's write (the airdrop) answers once the views include it. On the topology the client
 * alternates between the two API instances, so the write and the read land on different instances.
 */
import { openBooks } from '@tokenops/testing/conservation';
import { key, startWorld, type Reply, type World } from '@tokenops/testing/harness';

let world: World;
let books: Awaited<ReturnType<typeof openBooks>>;
beforeAll(async () => {
  world = await startWorld();
  books = await openBooks(world);
});
afterEach(async () => {
  await books.expectBalanced();
});
afterAll(async () => world?.close());

type Balance = { balances: Record<string, number>; daily_remaining: number; hourly_tx_remaining: number };
type History = { transactions: { tx_sig: string; amount: number }[] };

const fresh = <T>(reply: Reply<T>): T => {
  expect(reply.status).toBe(200);
  expect(reply.headers.get('x-data-stale')).toBe('false');
  return reply.body;
};

describe('a read right after a write shows it', () => {
  it('a spend, then at once its balance, limits and history (both contracts) show the spend', async () => {
    const agent = await world.agent({ per_tx_limit: 100, daily_limit: 1_000, hourly_tx_cap: 50 }, 100);
    const sigs: string[] = [];
    for (let i = 1; i <= 4; i++) {
      const spent = await world.client.call('POST', '/api/v1/transfer', {
        token: agent.key,
        body: { to: world.vendor, amount: 2, idempotency_key: key() },
      });
      expect(spent.body).toMatchObject({ status: 'confirmed' });
      sigs.unshift(spent.body.tx_sig as string);
      const balance = fresh(await world.client.call<Balance>('GET', '/api/v1/balance', { token: agent.key }));
      expect(balance).toMatchObject({
        balances: { USDC: 100 - 2 * i },
        daily_remaining: 1_000 - 2 * i,
        hourly_tx_remaining: 50 - i,
      });
      const limits = fresh(await world.client.call('GET', '/api/v1/limits', { token: agent.key }));
      expect(limits).toMatchObject({ daily_remaining: 1_000 - 2 * i, hourly_tx_remaining: 50 - i });
      const history = fresh(
        await world.client.call<History>('GET', '/api/v1/history?limit=10', { token: agent.key }),
      );
      expect(history.transactions.map((t) => t.tx_sig)).toEqual(sigs);
    }
    const variant = fresh(await world.client.call('GET', '/v1/limits', { token: agent.key }));
    expect(variant).toMatchObject({ spent_today: 8, hourly_count: 4 });
    const page = fresh(
      await world.client.call<{ items: unknown[] }>('GET', '/v1/history', { token: agent.key }),
    );
    expect(page.items).toHaveLength(4);
  });

  it('an airdrop answers once the views show it: a balance read at once shows the amount', async () => {
    const agent = await world.agent({}, 0);
    let total = 0;
    for (let i = 1; i <= 6; i++) {
      // Shift the turn half-way: airdrops on one instance and reads on the other, then the reverse.
      if (i === 4) await world.client.call('GET', '/api/v1/tokens');
      const airdrop = await world.client.call('POST', '/api/v1/dev/airdrop', {
        token: world.operator.token,
        body: { to: agent.id, amount: i },
      });
      expect(airdrop.status).toBe(200);
      expect(airdrop.headers.get('x-data-stale')).toBe('false');
      total += i;
      const balance = fresh(await world.client.call<Balance>('GET', '/api/v1/balance', { token: agent.key }));
      expect(balance.balances.USDC).toBe(total);
    }
  });
});

describe('the views stopped (embedded: its projection stopped)', () => {
  const onTopology = (globalThis as { TOPOLOGY?: boolean }).TOPOLOGY === true;
  // On the topology, state/projector-down.topology.spec.ts kills the projector process instead.
  (onTopology ? it.skip : it)(
    "X-Data-Lag-Ms is the age of the views (since the first event they lack), not of the agent's own write",
    async () => {
      const stalled = await startWorld();
      try {
        const startedAt = Date.now();
        const limits = { per_tx_limit: 100, daily_limit: 1_000, hourly_tx_cap: 50 };
        const [agent, other] = [await stalled.agent(limits, 100), await stalled.agent(limits, 100)];
        await stalled.service.stopProjection!();
        const spend = (a: { key: string }) =>
          stalled.client.call('POST', '/api/v1/transfer', {
            token: a.key,
            body: { to: stalled.vendor, amount: 1, idempotency_key: key() },
          });
        expect((await spend(other)).body).toMatchObject({ status: 'confirmed' }); // the views lack it
        const otherAnsweredAt = Date.now();
        await new Promise((r) => setTimeout(r, 3_000));
        expect((await spend(agent)).body).toMatchObject({ status: 'confirmed' });
        const sentAt = Date.now();
        const read = await stalled.client.call('GET', '/api/v1/balance', { token: agent.key });
        expect(read.headers.get('x-data-stale')).toBe('true');
        const lag = Number(read.headers.get('x-data-lag-ms'));
        // At least since the other agent's spend (the agent's own is seconds younger).
        expect(lag).toBeGreaterThanOrEqual(sentAt - otherAnsweredAt);
        expect(lag).toBeLessThanOrEqual(Date.now() - startedAt);
      } finally {
        await stalled.close();
      }
    },
    // A world of its own (an embedded service started in the test) and a 3 s wait: on a loaded
    // machine the 30 s this had were not always enough.
    90_000,
  );
});
