/**
 * The client against the running service (embedded; the `topology` project runs it on the server
 * processes), through a small proxy that records each request and, when a test asks, answers a fault
 * in the service's place (testing/fault-proxy.ts).
 */
import Big from 'big.js';
import { startWorld, type World, invitation } from '@tokenops/testing/harness';
import { faultProxy } from '@tokenops/testing/fault-proxy';
import { refusal } from '@tokenops/testing/refusal';
import { TokenOpsClient, isTokenOpsError, register } from './index';

let world: World;
let proxy: Awaited<ReturnType<typeof faultProxy>>;
beforeAll(async () => {
  world = await startWorld();
  proxy = await faultProxy(world.client.url);
});
afterAll(async () => {
  await proxy?.close();
  await world?.close();
});

const retry = { baseDelayMs: 10, maxDelayMs: 3_000 };
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** An invitation of the operator, and the agent's wallet funded with `funds` USDC. */
async function invite(limits: Record<string, number> = {}, funds = 1_000): Promise<string> {
  const inv = await invitation(world.client, world.operator, world.groupId, limits);
  expect(inv.status).toBe(200);
  if (funds > 0) {
    const airdrop = await world.client.call('POST', '/api/v1/dev/airdrop', {
      token: world.operator.token,
      body: { to: inv.body.agent_wallet_pda, amount: funds },
    });
    expect(airdrop.status).toBe(200);
  }
  return inv.body.invitation_code;
}

/** A registered agent's client, talking through the proxy. */
async function agent(limits: Record<string, number> = {}, funds = 1_000) {
  const { api_key, agent_wallet_pda } = await register(proxy.url, await invite(limits, funds));
  return { client: new TokenOpsClient({ baseUrl: proxy.url, apiKey: api_key, retry }), id: agent_wallet_pda };
}

const tokens = async () =>
  (await world.client.call<{ tokens: { symbol: string; mint: string }[] }>('GET', '/api/v1/tokens')).body
    .tokens;
const mint = async (symbol: string) => (await tokens()).find((t) => t.symbol === symbol)!.mint;

describe('register', () => {
  it('exchanges an invitation code for a key that works; a second use is invalid_invitation_code, not retried', async () => {
    const code = await invite({}, 0);
    const registration = await TokenOpsClient.register(proxy.url, code);
    expect(registration).toEqual({ agent_wallet_pda: expect.any(String), api_key: expect.any(String) });
    const client = new TokenOpsClient({ baseUrl: `${proxy.url}/api/v1/`, apiKey: registration.api_key });
    expect((await client.limits()).group_id).toBe(world.groupId);

    const before = proxy.to('/register').length;
    const again = await refusal(register(proxy.url, code));
    expect({ code: again.code, status: again.status }).toEqual({
      code: 'invalid_invitation_code',
      status: 400,
    });
    expect(proxy.to('/register').length).toBe(before + 1);
  });
});

describe('spends', () => {
  it('transfers: confirmed, with a fresh idempotency key; balance, limits and history read it back typed', async () => {
    const { client } = await agent({ per_tx_limit: 50, daily_limit: 200, hourly_tx_cap: 5 });
    const sent = await client.transfer({ to: world.vendor, amount: 25.5, memo: 'invoice 7', task_id: 't-1' });
    expect(sent).toEqual({
      tx_sig: expect.any(String),
      status: 'confirmed',
      net_amount: 25.4745,
      protocol_fee: 0.0255,
      daily_remaining: 174.5,
      hourly_tx_remaining: 4,
    });
    const body = JSON.parse(proxy.to('/transfer').at(-1)!.body) as { idempotency_key: string };
    expect(body.idempotency_key).toMatch(UUID);

    const balance = await client.balance();
    expect(balance.balances.USDC).toBe(974.5);
    expect(balance).toEqual(
      expect.objectContaining({
        per_tx_limit: 50,
        daily_limit: 200,
        daily_remaining: 174.5,
        hourly_tx_cap: 5,
      }),
    );
    expect(await client.limits()).toEqual({
      per_tx_limit: 50,
      daily_limit: 200,
      daily_remaining: 174.5,
      hourly_tx_cap: 5,
      hourly_tx_remaining: 4,
      group_id: world.groupId,
    });
    const history = await client.history({ limit: 5 });
    expect(history).toEqual([
      expect.objectContaining({ tx_sig: sent.tx_sig, action: 'transfer', amount: 25.5, to: world.vendor }),
    ]);
  });

  it('a refusal is a TokenOpsError with the contract code and status, sent once; simulate names it first', async () => {
    const { client } = await agent({ per_tx_limit: 10 });
    const dryRun = await client.simulate({ amount: 11, to: world.vendor });
    expect(dryRun).toEqual(
      expect.objectContaining({ would_succeed: false, reason: 'per_tx_limit_exceeded' }),
    );

    const before = proxy.to('/transfer').length;
    const err = await refusal(
      client.transfer({ to: world.vendor, amount: 11, idempotency_key: 'over-the-limit' }),
    );
    expect(isTokenOpsError(err, 'per_tx_limit_exceeded')).toBe(true);
    expect(err).toMatchObject({
      code: 'per_tx_limit_exceeded',
      status: 403,
      idempotencyKey: 'over-the-limit',
    });
    expect(err.message).toEqual(expect.any(String));
    expect(proxy.to('/transfer').length).toBe(before + 1);
  });

  it('does not retry a 400: invalid_amount, and validation_error with its details', async () => {
    const { client } = await agent({}, 0);
    const before = proxy.to('/transfer').length;
    const amount = await refusal(client.transfer({ to: world.vendor, amount: '1.1234567' }));
    expect({ code: amount.code, status: amount.status }).toEqual({ code: 'invalid_amount', status: 400 });
    const invalid = await refusal(client.transfer({ to: 'abc', amount: 1 }));
    expect(invalid.code).toBe('validation_error');
    expect(invalid.details).toEqual([expect.objectContaining({ path: '/to', issue: expect.any(String) })]);
    expect(proxy.to('/transfer').length).toBe(before + 2);
  });

  it('retries a 503 and a lost answer with the same idempotency key: one transfer only', async () => {
    const { client } = await agent();
    const before = proxy.to('/transfer').length;
    proxy.fail('/transfer', { status: 503, body: { error: 'service_unavailable', message: 'busy' } });
    proxy.fail('/transfer', 'cut-after-forward'); // the service transfers, the answer is lost
    const sent = await client.transfer({ to: world.vendor, amount: 10 });
    expect(sent.status).toBe('confirmed');

    const attempts = proxy.to('/transfer').slice(before);
    expect(attempts).toHaveLength(3);
    const keys = attempts.map((a) => (JSON.parse(a.body) as { idempotency_key: string }).idempotency_key);
    expect(new Set(keys).size).toBe(1);
    expect(keys[0]).toMatch(UUID);
    expect(await client.history()).toEqual([expect.objectContaining({ tx_sig: sent.tx_sig, amount: 10 })]);
    expect((await client.balance()).balances.USDC).toBe(990);
  });

  it('swaps, deposits into the venue and withdraws from it', async () => {
    const venues = await world.client.call<{ venues: { lending_program: string }[] }>(
      'GET',
      '/api/v1/venues',
    );
    const program = venues.body.venues[0]!.lending_program;
    await world.allow({ address: program, type: 2, label: 'local venue' });
    const { client } = await agent({ per_tx_limit: 500, daily_limit: 1000, hourly_tx_cap: 10 });
    const [usdc, sol] = [await mint('USDC'), await mint('SOL')];

    const swapped = await client.swap({
      from_token: 'USDC',
      to_token: 'SOL',
      from_mint: usdc,
      to_mint: sol,
      amount: 10,
    });
    expect(swapped).toEqual(
      expect.objectContaining({ status: 'confirmed', daily_remaining: 990, hourly_tx_remaining: 9 }),
    );
    expect(swapped.received_amount).toBeGreaterThan(0);
    const deposited = await client.deposit({ lending_program: program, amount: 100, mint: usdc });
    expect(deposited).toEqual({ tx_sig: expect.any(String), status: 'confirmed', deposited_amount: 100 });
    const held = (await client.balance()).balances.kUSDC!;
    expect(held).toBeGreaterThan(0);
    const withdrawn = await client.withdraw({
      lending_program: program,
      amount: held,
      mint: await mint('kUSDC'),
    });
    expect(withdrawn).toEqual({
      tx_sig: expect.any(String),
      status: 'confirmed',
      received_amount: expect.any(Number),
    });
    expect(withdrawn.received_amount).toBeGreaterThan(0);
    const balances = (await client.balance()).balances;
    expect(balances.USDC).toBe(Number(new Big(890).plus(withdrawn.received_amount).toFixed())); // 1000 - 10 - 100 + back
    expect(balances.SOL).toBe(swapped.received_amount);
  });
});

describe('rate limits', () => {
  it('waits what a 429’s Retry-After says, then succeeds', async () => {
    const { client } = await agent({}, 0);
    proxy.fail('/limits', {
      status: 429,
      headers: { 'retry-after': '1' },
      body: { error: 'rate_limited', message: 'Retry after 1 s.' },
    });
    const before = proxy.to('/limits').length;
    const started = Date.now();
    expect((await client.limits()).group_id).toBe(world.groupId);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_000);
    expect(proxy.to('/limits').length).toBe(before + 2); // the 429, then the service's answer
  });

  it('returns the service’s own 429 at once when its Retry-After is past the cap, with the seconds to wait', async () => {
    const { client } = await agent({}, 0);
    // The service allows 60 requests a minute per agent: spend them.
    const spent = await Promise.all(
      Array.from({ length: 60 }, () =>
        client.limits().then(
          () => 1,
          () => 0,
        ),
      ),
    );
    expect(spent.reduce((a, b) => a + b, 0)).toBe(60);
    const before = proxy.to('/balance').length;
    const started = Date.now();
    const err = await refusal(client.balance());
    expect(Date.now() - started).toBeLessThan(1_000);
    expect({ code: err.code, status: err.status }).toEqual({ code: 'rate_limited', status: 429 });
    expect(err.retryAfterSeconds).toBeGreaterThan(3);
    expect(proxy.to('/balance').length).toBe(before + 1);
  });
});

describe('webhooks', () => {
  it('creates, lists and deletes a subscription', async () => {
    const { client, id } = await agent({}, 0);
    const created = await client.createWebhook({
      url: 'https://93.184.216.34/hooks',
      event_types: ['agent.revoked'],
    });
    expect(created).toEqual({
      webhook_id: expect.any(String),
      signing_secret: expect.stringMatching(/^whsec_/),
    });
    expect(await client.listWebhooks()).toEqual([
      expect.objectContaining({
        webhook_id: created.webhook_id,
        scope: 'agent',
        agent_wallet_pda: id,
        url: 'https://93.184.216.34/hooks',
        event_types: ['agent.revoked'],
        status: 'active',
      }),
    ]);
    expect(await client.deleteWebhook(created.webhook_id)).toEqual({
      webhook_id: created.webhook_id,
      status: 'deleted',
    });
    expect((await client.listWebhooks()).filter((w) => w.status === 'active')).toEqual([]);
    const gone = await refusal(client.deleteWebhook(created.webhook_id));
    expect({ code: gone.code, status: gone.status }).toEqual({ code: 'not_found', status: 404 });
  });
});
