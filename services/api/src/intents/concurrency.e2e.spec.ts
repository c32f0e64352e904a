/**
 * Limits, budgets, invitation codes and idempotency under real parallel requests. Each test fires
 * its requests at once and counts what happened, on the API, in the views and on the chain. An agent
 * here sends more than the 60 requests a minute the rate limit allows (tested in http/), so this
 * world allows more.
 */
import { openBooks } from '@tokenops/testing/conservation';
import { key, startWorld, tally, type World, invitation } from '@tokenops/testing/harness';

let world: World;
let books: Awaited<ReturnType<typeof openBooks>>;
beforeAll(async () => {
  world = await startWorld({ vendorBudget: 370, rateLimitPerMinute: 10_000, databaseThread: true });
  books = await openBooks(world);
});
// Per mint, the supply on chain equals what every holder holds (testing/conservation.ts).
afterEach(async () => {
  await books.expectBalanced();
});
afterAll(async () => world.close());

const usdc = () => world.service.ctx.chain.tokens[0]!.mint;

describe('under 100 parallel transfers', () => {
  it('a daily limit that allows exactly 37 confirms exactly 37; the counters and the chain agree', async () => {
    const agent = await world.agent({ per_tx_limit: 10, daily_limit: 370, hourly_tx_cap: 1000 }, 1000);
    const peer = await world.agent({}, 0);
    const replies = await Promise.all(
      Array.from({ length: 100 }, () =>
        world.client.call('POST', '/api/v1/transfer', {
          token: agent.key,
          body: { to: peer.id, amount: 10, idempotency_key: key() },
        }),
      ),
    );
    expect(tally(replies)).toEqual({ confirmed: 37, daily_limit_exceeded: 63 });
    const limits = await world.client.call('GET', '/api/v1/limits', { token: agent.key });
    expect(limits.body).toEqual(
      expect.objectContaining({ daily_remaining: 0, hourly_tx_remaining: 1000 - 37 }),
    );
    expect((await world.service.ctx.chain.balances(agent.id)).get(usdc())).toBe(630_000_000n);
    const sigs = new Set(replies.filter((r) => r.status === 200).map((r) => r.body.tx_sig));
    expect(sigs.size).toBe(37);
    for (const sig of sigs) expect(await world.service.ctx.chain.status(sig as string)).toBe('confirmed');
  });

  it('an hourly cap of 37 confirms exactly 37', async () => {
    const agent = await world.agent({ per_tx_limit: 10, daily_limit: 100_000, hourly_tx_cap: 37 }, 1000);
    const peer = await world.agent({}, 0);
    const replies = await Promise.all(
      Array.from({ length: 100 }, () =>
        world.client.call('POST', '/api/v1/transfer', {
          token: agent.key,
          body: { to: peer.id, amount: 1, idempotency_key: key() },
        }),
      ),
    );
    expect(tally(replies)).toEqual({ confirmed: 37, hourly_cap_exceeded: 63 });
    const limits = await world.client.call('GET', '/api/v1/limits', { token: agent.key });
    expect(limits.body.hourly_tx_remaining).toBe(0);
    expect((await world.service.ctx.chain.balances(agent.id)).get(usdc())).toBe(963_000_000n);
    expect((await world.service.ctx.chain.balances(peer.id)).get(usdc())).toBe(37n * 999_000n);
  });

  it('an allow-list budget of 370 shared by two agents confirms exactly 37 transfers of 10 between them', async () => {
    const a = await world.agent({ per_tx_limit: 10, daily_limit: 100_000, hourly_tx_cap: 1000 }, 1000);
    const b = await world.agent({ per_tx_limit: 10, daily_limit: 100_000, hourly_tx_cap: 1000 }, 1000);
    const before = (await world.service.ctx.chain.balances(world.vendor)).get(usdc())!;
    const replies = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        world.client.call('POST', '/api/v1/transfer', {
          token: (i % 2 ? a : b).key,
          body: { to: world.vendor, amount: 10, idempotency_key: key() },
        }),
      ),
    );
    expect(tally(replies)).toEqual({ confirmed: 37, whitelist_amount_exhausted: 63 });
    const received = (await world.service.ctx.chain.balances(world.vendor)).get(usdc())! - before;
    expect(received).toBe(37n * 9_990_000n);
  });
});

describe('one invitation code, 20 parallel registrations', () => {
  it('gives exactly one key', async () => {
    const inv = await invitation(world.client, world.operator, world.groupId, {});
    const replies = await Promise.all(
      Array.from({ length: 20 }, () =>
        world.client.call('POST', '/api/v1/register', {
          body: { invitation_code: inv.body.invitation_code },
        }),
      ),
    );
    expect(tally(replies)).toEqual({ confirmed: 1, invalid_invitation_code: 19 });
  });
});

describe('one idempotency key, 20 parallel requests', () => {
  it('makes one chain transaction, and every request gets the same answer', async () => {
    const agent = await world.agent({}, 1000);
    const peer = await world.agent({}, 0);
    const body = { to: peer.id, amount: 3, idempotency_key: key() };
    const replies = await Promise.all(
      Array.from({ length: 20 }, () =>
        world.client.call('POST', '/api/v1/transfer', { token: agent.key, body }),
      ),
    );
    expect(replies.map((r) => r.status)).toEqual(Array(20).fill(200));
    for (const r of replies) expect(r.body).toEqual(replies[0]!.body);
    expect((await world.service.ctx.chain.balances(peer.id)).get(usdc())).toBe(2_997_000n);
    expect((await world.service.ctx.chain.balances(agent.id)).get(usdc())).toBe(997_000_000n);
    const history = await world.client.call<{ transactions: unknown[] }>('GET', '/api/v1/history', {
      token: agent.key,
    });
    expect(history.body.transactions).toHaveLength(1);
  });
});
