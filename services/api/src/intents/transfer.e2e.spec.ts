import { generateSigner, streams } from '@tokenops/shared';
import { openBooks } from '@tokenops/testing/conservation';
import { key, startWorld, type World } from '@tokenops/testing/harness';

let world: World;
let books: Awaited<ReturnType<typeof openBooks>>;
beforeAll(async () => {
  world = await startWorld({ databaseThread: true });
  books = await openBooks(world);
});
// Per mint, the supply on chain equals what every holder holds (testing/conservation.ts).
afterEach(async () => {
  await books.expectBalanced();
});
afterAll(async () => world.close());

describe('an agent transfers to an allow-listed recipient', () => {
  it('confirms with the chain signature, the fee split, and the remaining headroom; the chain agrees', async () => {
    const agent = await world.agent({ per_tx_limit: 50, daily_limit: 200, hourly_tx_cap: 5 });
    const res = await world.client.call('POST', '/api/v1/transfer', {
      token: agent.key,
      body: { to: world.vendor, amount: 25.5, idempotency_key: key(), memo: 'invoice 7', task_id: 't-1' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      tx_sig: expect.any(String),
      status: 'confirmed',
      net_amount: 25.4745,
      protocol_fee: 0.0255,
      daily_remaining: 174.5,
      hourly_tx_remaining: 4,
    });
    expect(await world.service.ctx.chain.status(res.body.tx_sig as string)).toBe('confirmed');
    const usdc = world.service.ctx.chain.tokens[0]!.mint;
    expect((await world.service.ctx.chain.balances(world.vendor)).get(usdc)).toBe(25_474_500n);
    expect((await world.service.ctx.chain.balances(agent.id)).get(usdc)).toBe(974_500_000n);
  });

  it('answers a retry with the same key as it answered first, derived from the log, then recorded; one transfer', async () => {
    const agent = await world.agent({ per_tx_limit: 50, daily_limit: 200, hourly_tx_cap: 5 });
    const body = { to: world.vendor, amount: 3, idempotency_key: key() };
    const keyStream = streams.idempotency(agent.id, body.idempotency_key);
    const recorded = async () => (await world.service.ctx.store.readStream(keyStream)).map((e) => e.type);
    const first = await world.client.call('POST', '/api/v1/transfer', { token: agent.key, body });
    expect(first.status).toBe(200);
    // The answer is in the log already (the acceptance and the outcome): the key holds only its claim.
    expect(await recorded()).toEqual(['idempotency.claimed']);
    const again = await world.client.call('POST', '/api/v1/transfer', { token: agent.key, body });
    expect(again).toEqual(expect.objectContaining({ status: 200, body: first.body }));
    expect(await recorded()).toEqual(['idempotency.claimed', 'idempotency.completed']);
    const third = await world.client.call('POST', '/api/v1/transfer', { token: agent.key, body });
    expect(third).toEqual(expect.objectContaining({ status: 200, body: first.body }));
    expect(await recorded()).toEqual(['idempotency.claimed', 'idempotency.completed']);
    const usdc = world.service.ctx.chain.tokens[0]!.mint;
    expect((await world.service.ctx.chain.balances(agent.id)).get(usdc)).toBe(997_000_000n);
  });

  it('refuses a recipient that is not allow-listed with 403 whitelist_violation, and moves nothing', async () => {
    const agent = await world.agent();
    const stranger = generateSigner().address;
    const res = await world.client.call('POST', '/api/v1/transfer', {
      token: agent.key,
      body: { to: stranger, amount: 1, idempotency_key: key() },
    });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: 'whitelist_violation', message: expect.any(String) });
    expect(
      (await world.service.ctx.chain.balances(stranger)).get(world.service.ctx.chain.tokens[0]!.mint),
    ).toBe(0n);
  });
});
