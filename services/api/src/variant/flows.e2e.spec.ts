/**
 * The agent's end-to-end flows on both contracts: one table maps each primary call to its variant
 * (request and answer), and the same flow runs through each, so the variant is the same application
 * in other words. Then one agent across both prefixes: registered on one, spending and reading on the
 * other, its limits holding over both. Every variant answer is checked against the variant schemas.
 */
import { randomUUID } from 'node:crypto';
import SwaggerParser from '@apidevtools/swagger-parser';
import { responseViolations, type VariantSchemaName } from '@tokenops/shared';
import { openBooks } from '@tokenops/testing/conservation';
import { key, startWorld, type World, invitation } from '@tokenops/testing/harness';

let world: World;
let books: Awaited<ReturnType<typeof openBooks>>;
beforeAll(async () => {
  world = await startWorld();
  books = await openBooks(world);
  // The operator allows the lending venue (a protocol entry) for deposits and withdrawals.
  await world.allow({ address: await venue(), type: 2, label: 'local venue' });
});
afterEach(async () => {
  await books.expectBalanced();
});
afterAll(async () => world?.close());

type Body = Record<string, unknown>;
type Agent = { id: string; key: string };
const mint = (symbol: string) => world.service.ctx.chain.tokens.find((t) => t.symbol === symbol)!;

/** What an answer means, whichever contract gave it. */
interface Meaning {
  status: number;
  code?: string;
  fields: Body;
}

interface Call {
  method: 'GET' | 'POST';
  path: string;
  body?: Body;
  /** The variant's idempotency header. */
  keyed?: boolean;
  schema?: VariantSchemaName;
}

/** One operation of the flow, in each contract: the call and the reading of its answer. */
interface Row {
  primary(args: Body): Call;
  variant(args: Body): Call;
  read: { primary(b: Body): Body; variant(b: Body): Body };
}

const num = (v: unknown) => Number(v);
const TABLE: Record<string, Row> = {
  transfer: {
    primary: (a) => ({
      method: 'POST',
      path: '/api/v1/transfer',
      body: { to: a.to, amount: a.amount, memo: a.memo, idempotency_key: key() },
    }),
    variant: (a) => ({
      method: 'POST',
      path: '/v1/transfer',
      body: { recipient: a.to, amount: a.amount, memo: a.memo },
      keyed: true,
      schema: 'VariantTransferResponse',
    }),
    read: {
      primary: (b) => ({ net: num(b.net_amount), fee: num(b.protocol_fee), daily: num(b.daily_remaining) }),
      variant: (b) => ({ net: num(b.amount_sent), fee: num(b.fee), daily: num(b.remaining_today) }),
    },
  },
  simulate: {
    primary: (a) => ({
      method: 'POST',
      path: '/api/v1/intents/simulate',
      body: { to: a.to, amount: a.amount },
    }),
    variant: (a) => ({
      method: 'POST',
      path: '/v1/intents/simulate',
      body: { type: 'transfer', recipient: a.to, amount: a.amount },
      schema: 'VariantSimulateResponse',
    }),
    read: {
      primary: (b) => ({ ok: b.would_succeed, fee: num(b.estimated_fee), why: b.reason }),
      variant: (b) => ({
        ok: b.would_succeed,
        fee: num(b.fee_preview),
        why: (b.reason as Body | undefined)?.code,
      }),
    },
  },
  swap: {
    primary: (a) => ({
      method: 'POST',
      path: '/api/v1/swap',
      body: {
        from_token: 'USDC',
        to_token: 'SOL',
        from_mint: mint('USDC').mint,
        to_mint: mint('SOL').mint,
        amount: a.amount,
        idempotency_key: key(),
      },
    }),
    variant: (a) => ({
      method: 'POST',
      path: '/v1/swap',
      body: { input_mint: mint('USDC').mint, output_mint: mint('SOL').mint, input_amount: a.amount },
      keyed: true,
      schema: 'VariantSwapResponse',
    }),
    read: {
      primary: (b) => ({ out: num(b.received_amount) > 0, daily: num(b.daily_remaining) }),
      variant: (b) => ({ out: num(b.output_amount) > 0, daily: num(b.remaining_today) }),
    },
  },
  deposit: {
    primary: (a) => ({
      method: 'POST',
      path: '/api/v1/deposit',
      body: { amount: a.amount, lending_program: a.venue, idempotency_key: key() },
    }),
    variant: (a) => ({
      method: 'POST',
      path: '/v1/deposit',
      body: { amount: a.amount, lending_program: a.venue },
      keyed: true,
      schema: 'VariantDepositResponse',
    }),
    read: {
      primary: (b) => ({ got: num(b.deposited_amount) }),
      variant: (b) => ({ got: num(b.deposited_amount) }),
    },
  },
  withdraw: {
    primary: (a) => ({
      method: 'POST',
      path: '/api/v1/withdraw',
      body: { amount: a.amount, lending_program: a.venue, idempotency_key: key() },
    }),
    variant: (a) => ({
      method: 'POST',
      path: '/v1/withdraw',
      body: { amount: a.amount, lending_program: a.venue },
      keyed: true,
      schema: 'VariantWithdrawResponse',
    }),
    read: {
      primary: (b) => ({ got: num(b.received_amount) >= 1 }),
      variant: (b) => ({ got: num(b.received_amount) >= 1 }),
    },
  },
  limits: {
    primary: () => ({ method: 'GET', path: '/api/v1/limits' }),
    variant: () => ({ method: 'GET', path: '/v1/limits', schema: 'VariantLimitsResponse' }),
    read: {
      primary: (b) => ({
        daily: num(b.daily_remaining),
        hourly: b.hourly_tx_remaining,
        cap: b.hourly_tx_cap,
      }),
      variant: (b) => ({ daily: num(b.remaining_today), hourly: b.remaining_hourly, cap: b.hourly_tx_cap }),
    },
  },
  balance: {
    primary: () => ({ method: 'GET', path: '/api/v1/balance' }),
    variant: () => ({ method: 'GET', path: '/v1/balance', schema: 'VariantBalanceResponse' }),
    read: {
      primary: (b) => ({ usdc: num((b.balances as Body).USDC) }),
      variant: (b) => ({ usdc: num(b.balance) }),
    },
  },
  history: {
    primary: () => ({ method: 'GET', path: '/api/v1/history' }),
    variant: () => ({ method: 'GET', path: '/v1/history?type=transfer', schema: 'VariantHistoryResponse' }),
    read: {
      primary: (b) =>
        ({
          transfers: (b.transactions as Body[])
            .filter((t) => t.action === 'transfer')
            .map((t) => [num(t.amount), t.memo ?? null]),
        }) as Body,
      variant: (b) => ({ transfers: (b.items as Body[]).map((t) => [num(t.amount), t.memo]) }),
    },
  },
};

type Contract = 'primary' | 'variant';

async function run(
  contract: Contract,
  agent: Agent,
  op: keyof typeof TABLE,
  args: Body = {},
): Promise<Meaning> {
  const row = TABLE[op]!;
  const call = row[contract](args);
  const body = call.body && Object.fromEntries(Object.entries(call.body).filter(([, v]) => v !== undefined));
  const res = await world.client.call<Body>(call.method, call.path, {
    token: agent.key,
    ...(body && { body }),
    ...(call.keyed && { headers: { 'idempotency-key': randomUUID() } }),
  });
  if (contract === 'variant') {
    const schema = res.status === 200 ? call.schema! : 'VariantErrorBody';
    expect(responseViolations(schema, res.body)).toEqual([]);
  }
  if (res.status !== 200) {
    const code =
      contract === 'variant' ? ((res.body.error as Body).code as string) : (res.body.error as string);
    return { status: res.status, code, fields: {} };
  }
  return { status: 200, fields: row.read[contract](res.body) };
}

async function register(contract: Contract, limits: Body, funds = 1_000): Promise<Agent> {
  const inv = await invitation(world.client, world.operator, world.groupId, limits);
  const reg = await world.client.call<Body>(
    'POST',
    contract === 'variant' ? '/v1/agents/register' : '/api/v1/register',
    { body: { invitation_code: inv.body.invitation_code } },
  );
  expect(reg.status).toBe(200);
  if (contract === 'variant') {
    expect(responseViolations('VariantRegisterResponse', reg.body)).toEqual([]);
    expect(reg.body).toEqual({
      agent_wallet_pda: expect.any(String),
      api_key: expect.any(String),
      group_config_pda: world.groupId,
      limits: limits,
    });
  }
  const id = reg.body.agent_wallet_pda as string;
  await world.client.call('POST', '/api/v1/dev/airdrop', {
    token: world.operator.token,
    body: { to: id, amount: funds },
  });
  return { id, key: reg.body.api_key as string };
}

const venue = async () =>
  (await world.client.call<{ venues: { lending_program: string }[] }>('GET', '/api/v1/venues')).body
    .venues[0]!.lending_program;

describe.each<Contract>(['primary', 'variant'])('the agent flow on the %s contract', (contract) => {
  it('registers, simulates, transfers, swaps, deposits, withdraws and reads the same', async () => {
    const limits = { per_tx_limit: 100, daily_limit: 300, hourly_tx_cap: 6 };
    const agent = await register(contract, limits);
    const to = world.vendor;
    expect(await run(contract, agent, 'simulate', { to, amount: 20 })).toEqual({
      status: 200,
      fields: { ok: true, fee: 0.02, why: undefined },
    });
    expect(await run(contract, agent, 'transfer', { to, amount: 20, memo: 'inv 1' })).toEqual({
      status: 200,
      fields: { net: 19.98, fee: 0.02, daily: 280 },
    });
    expect(await run(contract, agent, 'simulate', { to, amount: 101 })).toEqual({
      status: 200,
      fields: { ok: false, fee: 0.101, why: 'per_tx_limit_exceeded' },
    });
    expect(await run(contract, agent, 'transfer', { to, amount: 101 })).toEqual({
      status: 403,
      code: 'per_tx_limit_exceeded',
      fields: {},
    });
    expect(await run(contract, agent, 'swap', { amount: 10 })).toEqual({
      status: 200,
      fields: { out: true, daily: 270 },
    });
    const program = await venue();
    expect(await run(contract, agent, 'deposit', { amount: 5, venue: program })).toEqual({
      status: 200,
      fields: { got: 5 },
    });
    expect(await run(contract, agent, 'withdraw', { amount: 1, venue: program })).toEqual({
      status: 200,
      fields: { got: true },
    });
    expect(await run(contract, agent, 'limits')).toEqual({
      status: 200,
      fields: { daily: 265, hourly: 2, cap: 6 },
    });
    const balance = await run(contract, agent, 'balance');
    expect(balance.fields.usdc).toBeGreaterThan(964);
    expect(await run(contract, agent, 'history')).toEqual({
      status: 200,
      fields: { transfers: [[20, 'inv 1']] },
    });
  });
});

describe('the variant history', () => {
  it('lists deposits and withdrawals too, with the venue as recipient', async () => {
    const agent = await register('variant', { per_tx_limit: 100, daily_limit: 300, hourly_tx_cap: 6 });
    const program = await venue();
    await run('variant', agent, 'deposit', { amount: 3, venue: program });
    await run('variant', agent, 'withdraw', { amount: 1, venue: program });
    const res = await world.client.call<{ items: Body[] }>('GET', '/v1/history', { token: agent.key });
    expect(res.body.items.map((i) => [i.type, i.recipient])).toEqual([
      ['withdraw', program],
      ['deposit', program],
    ]);
  });
});

describe('one agent on both prefixes', () => {
  it('registered on /v1, spends on /api/v1 and reads on /v1; the limits hold across both', async () => {
    const agent = await register('variant', { per_tx_limit: 100, daily_limit: 100, hourly_tx_cap: 3 });
    expect((await run('primary', agent, 'transfer', { to: world.vendor, amount: 60 })).status).toBe(200);
    expect(await run('variant', agent, 'limits')).toEqual({
      status: 200,
      fields: { daily: 40, hourly: 2, cap: 3 },
    });
    // 60 + 50 is past the daily limit, whichever prefix asks.
    expect(await run('variant', agent, 'transfer', { to: world.vendor, amount: 50 })).toEqual({
      status: 403,
      code: 'daily_limit_exceeded',
      fields: {},
    });
    expect((await run('variant', agent, 'transfer', { to: world.vendor, amount: 40 })).status).toBe(200);
    expect(await run('primary', agent, 'limits')).toEqual({
      status: 200,
      fields: { daily: 0, hourly: 1, cap: 3 },
    });
    expect((await run('primary', agent, 'transfer', { to: world.vendor, amount: 1 })).code).toBe(
      'daily_limit_exceeded',
    );
  });

  it('registered on /api/v1, uses its key on /v1', async () => {
    const agent = await register('primary', { per_tx_limit: 100, daily_limit: 100, hourly_tx_cap: 3 });
    expect(
      (await run('variant', agent, 'transfer', { to: world.vendor, amount: 10, memo: 'x' })).status,
    ).toBe(200);
    expect((await run('primary', agent, 'history')).fields).toEqual({ transfers: [[10, 'x']] });
  });
});

describe('the variant OpenAPI document', () => {
  it('is served at /v1/openapi.json and is valid OpenAPI 3.1', async () => {
    const res = await world.client.call<Body>('GET', '/v1/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe('3.1.0');
    await expect(SwaggerParser.validate(res.body as never)).resolves.toBeTruthy();
  });
});
