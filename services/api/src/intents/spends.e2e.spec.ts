/**
 * Swap, deposit and withdraw over HTTP, every path and every error code with its status, on the
 * embedded default and (the `topology` project) on the server topology. Every answer is checked
 * against the contract by the service itself (checkResponses; CHECK_RESPONSES on the topology). The
 * expected amounts are computed here from what an agent can read: the pools' reserves
 * (GET /api/v1/pools) and the constant-product formula with its 0.30 % fee, the venue's rate. After
 * every test, per mint, the supply on chain equals what its holders hold (testing/conservation.ts).
 */
import Big from 'big.js';
import { generateSigner, type LocalChain } from '@tokenops/shared';
import { localFixtures, LocalVenue } from '@tokenops/shared/adapters';
import { openBooks } from '@tokenops/testing/conservation';
import { key, startWorld, type Reply, type World } from '@tokenops/testing/harness';

/** The `topology` project: the chain node is shared by every suite of the run. */
const onSharedChain =
  process.env.TOKENOPS_STACK !== undefined && (globalThis as { TOPOLOGY?: boolean }).TOPOLOGY === true;

let world: World;
let books: Awaited<ReturnType<typeof openBooks>>;
beforeAll(async () => {
  world = await startWorld({ databaseThread: true });
  books = await openBooks(world);
});
afterEach(async () => {
  await books.expectBalanced();
});
afterAll(async () => world?.close());

// ---- what an agent reads, and the arithmetic it can do with it --------------------------------

const token = (symbol: string) => {
  const t = world.service.ctx.chain.tokens.find((x) => x.symbol === symbol);
  if (!t) throw new Error(`no ${symbol} in the registry`);
  return t;
};
const USDC = () => token('USDC');
const SOL = () => token('SOL');
const KUSDC = () => token('kUSDC');

/** Base units of a human amount (a JSON number or decimal text), exactly. */
const units = (amount: number | string, decimals: number): bigint =>
  BigInt(new Big(String(amount)).times(new Big(10).pow(decimals)).toFixed(0));
/** A base-unit amount as the number the API answers (its exact decimal, read as JSON reads it). */
const human = (amount: bigint, decimals: number): number =>
  Number(new Big(amount.toString()).div(new Big(10).pow(decimals)).toFixed());

/** The constant-product output with the 0.30 % fee taken from the input (docs/swaps.md). */
const poolOut = (amountIn: bigint, reserveIn: bigint, reserveOut: bigint): bigint =>
  (amountIn * 9970n * reserveOut) / (reserveIn * 10_000n + amountIn * 9970n);

interface PoolsReply {
  aggregator: string;
  pools: {
    pair: string;
    fee_bps: number;
    reserves: { symbol: string; mint: string; vault: string; reserve: number }[];
  }[];
}

/** The USDC/SOL pool's reserves in base units, as GET /api/v1/pools shows them. */
async function reserves(): Promise<{ usdc: bigint; sol: bigint }> {
  const r = await world.client.call<PoolsReply>('GET', '/api/v1/pools');
  const pool = r.body.pools.find((p) => p.pair === 'USDC/SOL')!;
  const of = (symbol: string) => pool.reserves.find((x) => x.symbol === symbol)!.reserve;
  return { usdc: units(of('USDC'), 6), sol: units(of('SOL'), 9) };
}

async function onChain(owner: string, symbol: string): Promise<bigint> {
  return (await world.service.ctx.chain.tokenAccount(owner, token(symbol).mint)).amount;
}

type Agent = { id: string; key: string };

async function airdrop(to: string, amount: number, symbol = 'USDC'): Promise<void> {
  const r = await world.client.call('POST', '/api/v1/dev/airdrop', {
    token: world.operator.token,
    body: { to, amount, mint: token(symbol).mint },
  });
  expect(r.status).toBe(200);
}

const limits = async (agent: Agent) =>
  (await world.client.call<Record<string, number>>('GET', '/api/v1/limits', { token: agent.key })).body;

const swapBody = (
  from: string,
  to: string,
  amount: number | string,
  extra: Record<string, unknown> = {},
) => ({
  from_token: from,
  to_token: to,
  from_mint: token(from).mint,
  to_mint: token(to).mint,
  amount,
  idempotency_key: key(),
  ...extra,
});
const swap = (agent: Agent, body: Record<string, unknown>) =>
  world.client.call('POST', '/api/v1/swap', { token: agent.key, body });

const venue = async (): Promise<string> => {
  const r = await world.client.call<{ venues: { lending_program: string; name: string; mints: string[] }[] }>(
    'GET',
    '/api/v1/venues',
  );
  return r.body.venues[0]!.lending_program;
};
const lend = (action: 'deposit' | 'withdraw', agent: Agent, body: Record<string, unknown>) =>
  world.client.call('POST', `/api/v1/${action}`, {
    token: agent.key,
    body: { idempotency_key: key(), ...body },
  });

/** klend's instruction data: the Anchor discriminator, then the amount in base units (u64 LE). */
const klendData = (discriminator: string, amount: bigint): number[] => {
  const data = Buffer.alloc(16);
  Buffer.from(discriminator, 'hex').copy(data);
  data.writeBigUInt64LE(amount, 8);
  return [...data];
};
const DEPOSIT_RESERVE_LIQUIDITY = 'a9c91e7e06cd6644';
const REDEEM_RESERVE_COLLATERAL = 'ea75b57db98edc1d';

/** The status and the envelope of a code other than validation_error: `{error, message}`, nothing more. */
function expectError(r: Reply, status: number, code: string): void {
  expect({ status: r.status, body: r.body }).toEqual({
    status,
    body: { error: code, message: expect.any(String) },
  });
}

/** The venue authority: owns the vaults. */
const venueAuthority = () => localFixtures(world.service.seed).venue.authority.address;

/** The venue's exchange rate (underlying per receipt) now, from the chain, as a fraction. */
async function venueRate(): Promise<{ numerator: bigint; denominator: bigint }> {
  const v = await LocalVenue.open(world.service.ctx.chain, { seed: world.service.seed });
  return v.exchangeRate(USDC().mint);
}

// ---- the public listings ------------------------------------------------------------------------

describe('what an agent can look up before it spends', () => {
  it('lists the tokens (with the receipt tokens), the venue and the pools', async () => {
    const tokens = await world.client.call<{ tokens: { symbol: string }[] }>('GET', '/api/v1/tokens');
    expect(tokens.body.tokens.map((t) => t.symbol)).toEqual(['USDC', 'SOL', 'kUSDC', 'kSOL']);
    const venues = await world.client.call('GET', '/api/v1/venues');
    expect(venues.body).toEqual({
      venues: [
        { lending_program: expect.any(String), name: expect.any(String), mints: [USDC().mint, SOL().mint] },
      ],
    });
    const pools = await world.client.call<PoolsReply>('GET', '/api/v1/pools');
    expect(pools.body.pools).toEqual([
      {
        pair: 'USDC/SOL',
        fee_bps: 30,
        reserves: [
          { symbol: 'USDC', mint: USDC().mint, vault: expect.any(String), reserve: expect.any(Number) },
          { symbol: 'SOL', mint: SOL().mint, vault: expect.any(String), reserve: expect.any(Number) },
        ],
      },
    ]);
    // Embedded, the chain is this suite's own: the pools are as seeded, 1,000,000 USDC against 10,000 SOL.
    if (!world.service.rpcUrl)
      expect(await reserves()).toEqual({ usdc: 1_000_000_000_000n, sol: 10_000_000_000_000n });
  });
});

// ---- swap ---------------------------------------------------------------------------------------

describe('POST /api/v1/swap', () => {
  it('confirms USDC → SOL at the pool’s price: received, rate, limits, balance, history and the chain agree', async () => {
    const agent = await world.agent({ per_tx_limit: 1000, daily_limit: 5000, hourly_tx_cap: 10 }, 1000);
    const before = await reserves();
    const out = poolOut(100_000_000n, before.usdc, before.sol);

    const r = await swap(agent, swapBody('USDC', 'SOL', 100, { task_id: 'rebalance-1' }));
    expect(r.status).toBe(200);
    const received = human(out, 9);
    expect(r.body).toEqual({
      tx_sig: expect.any(String),
      status: 'confirmed',
      received_amount: received,
      rate: Number(new Big(received).div(100).round(6, Big.roundDown).toFixed()),
      daily_remaining: 4900,
      hourly_tx_remaining: 9,
    });
    expect(await world.service.ctx.chain.status(r.body.tx_sig as string)).toBe('confirmed');

    // The chain: the agent paid 100 USDC and holds the output; the pool moved by the same amounts.
    expect(await onChain(agent.id, 'USDC')).toBe(900_000_000n);
    expect(await onChain(agent.id, 'SOL')).toBe(out);
    expect(await reserves()).toEqual({ usdc: before.usdc + 100_000_000n, sol: before.sol - out });

    const balance = await world.client.call('GET', '/api/v1/balance', { token: agent.key });
    expect(balance.body).toEqual(
      expect.objectContaining({
        balances: expect.objectContaining({ USDC: 900, SOL: received }),
        daily_remaining: 4900,
        hourly_tx_remaining: 9,
      }),
    );
    const history = await world.client.call<{ transactions: Record<string, unknown>[] }>(
      'GET',
      '/api/v1/history',
      { token: agent.key },
    );
    expect(history.body.transactions).toEqual([
      expect.objectContaining({
        tx_sig: r.body.tx_sig,
        action: 'swap',
        amount: 100,
        token: 'USDC',
        task_id: 'rebalance-1',
      }),
    ]);
  });

  it('confirms SOL → USDC, its value in the base token (the quote) counted by the daily limit', async () => {
    const agent = await world.agent({ per_tx_limit: 1000, daily_limit: 5000, hourly_tx_cap: 10 }, 0);
    await airdrop(agent.id, 3, 'SOL');
    const before = await reserves();
    const out = poolOut(2_000_000_000n, before.sol, before.usdc);

    const r = await swap(agent, swapBody('SOL', 'USDC', 2));
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      tx_sig: expect.any(String),
      status: 'confirmed',
      received_amount: human(out, 6),
      rate: Number(new Big(human(out, 6)).div(2).round(6, Big.roundDown).toFixed()),
      // Valued at the quote of selling 2 SOL for USDC, which is what the swap paid.
      daily_remaining: human(5_000_000_000n - out, 6),
      hourly_tx_remaining: 9,
    });
    expect(await onChain(agent.id, 'SOL')).toBe(1_000_000_000n);
    expect(await onChain(agent.id, 'USDC')).toBe(out);
    expect(await reserves()).toEqual({ usdc: before.usdc - out, sol: before.sol + 2_000_000_000n });
  });

  it('is idempotent: the same key again (and ten times at once) gets the same answer, one swap on chain', async () => {
    const agent = await world.agent({ per_tx_limit: 1000, daily_limit: 5000, hourly_tx_cap: 50 }, 100);
    const body = swapBody('USDC', 'SOL', 10);
    const first = await swap(agent, body);
    expect(first.status).toBe(200);
    const again = await swap(agent, body);
    expect(again).toEqual(expect.objectContaining({ status: 200, body: first.body }));
    const parallel = await Promise.all(Array.from({ length: 10 }, () => swap(agent, body)));
    for (const p of parallel)
      expect({ status: p.status, body: p.body }).toEqual({ status: 200, body: first.body });

    expect(await onChain(agent.id, 'USDC')).toBe(90_000_000n);
    expect(await onChain(agent.id, 'SOL')).toBe(units(first.body.received_amount as number, 9));
    const history = await world.client.call<{ transactions: unknown[] }>('GET', '/api/v1/history', {
      token: agent.key,
    });
    expect(history.body.transactions).toHaveLength(1);
    expect(await limits(agent)).toEqual(
      expect.objectContaining({ daily_remaining: 4990, hourly_tx_remaining: 49 }),
    );

    // The same key with another body: 409, and nothing more happens.
    expectError(await swap(agent, { ...body, amount: 11 }), 409, 'idempotency_key_reused');
    expect(await onChain(agent.id, 'USDC')).toBe(90_000_000n);
  });

  describe('refusals before anything is reserved (the limits do not move, nothing on chain)', () => {
    let agent: Agent;
    let limitsBefore: Record<string, number>;
    beforeAll(async () => {
      agent = await world.agent({ per_tx_limit: 100, daily_limit: 150, hourly_tx_cap: 20 }, 100);
      limitsBefore = await limits(agent);
    });
    afterEach(async () => {
      expect(await limits(agent)).toEqual(limitsBefore);
      expect(await onChain(agent.id, 'USDC')).toBe(100_000_000n);
      expect(await onChain(agent.id, 'SOL')).toBe(0n);
    });

    it('validation_error 400 for a missing field, with a pointer to each', async () => {
      const r = await swap(agent, { from_token: 'USDC', amount: 1 });
      expect(r.status).toBe(400);
      expect(r.body).toEqual({
        error: 'validation_error',
        message: expect.any(String),
        details: [
          { path: '/to_token', issue: expect.any(String) },
          { path: '/from_mint', issue: expect.any(String) },
          { path: '/to_mint', issue: expect.any(String) },
          { path: '/idempotency_key', issue: expect.any(String) },
        ],
      });
    });

    it('invalid_mint 400 when a symbol disagrees with its mint, or a mint is not an address', async () => {
      expectError(await swap(agent, swapBody('USDC', 'SOL', 1, { from_token: 'SOL' })), 400, 'invalid_mint');
      expectError(await swap(agent, swapBody('USDC', 'SOL', 1, { to_token: 'USDC' })), 400, 'invalid_mint');
      expectError(
        await swap(agent, swapBody('USDC', 'SOL', 1, { to_mint: '1'.repeat(33) })),
        400,
        'invalid_mint',
      );
    });

    it('token_not_in_registry 400 for a mint the registry does not list', async () => {
      const r = await swap(
        agent,
        swapBody('USDC', 'SOL', 1, { to_token: 'BONK', to_mint: generateSigner().address }),
      );
      expectError(r, 400, 'token_not_in_registry');
    });

    it('validation_error 400 on /to_mint for the same token on both sides', async () => {
      const r = await swap(agent, swapBody('USDC', 'USDC', 1));
      expect(r.body).toEqual({
        error: 'validation_error',
        message: expect.any(String),
        details: [{ path: '/to_mint', issue: expect.any(String) }],
      });
    });

    it('validation_error 400 on /minimum_amount_out when it is above the quote', async () => {
      const { usdc, sol } = await reserves();
      const quoted = poolOut(10_000_000n, usdc, sol);
      const above = human(((quoted + 1000n) / 1000n) * 1000n, 9); // just above, at 6 decimals
      const r = await swap(agent, swapBody('USDC', 'SOL', 10, { minimum_amount_out: above }));
      expect(r.status).toBe(400);
      expect(r.body).toEqual({
        error: 'validation_error',
        message: expect.any(String),
        details: [{ path: '/minimum_amount_out', issue: expect.any(String) }],
      });
    });

    it('invalid_amount 400: zero, 7 decimals, negative, text; a minimum with 7 decimals', async () => {
      for (const amount of [0, 1.0000001, -1, 'ten'])
        expectError(await swap(agent, swapBody('USDC', 'SOL', amount)), 400, 'invalid_amount');
      expectError(
        await swap(agent, swapBody('USDC', 'SOL', 1, { minimum_amount_out: 0.0000001 })),
        400,
        'invalid_amount',
      );
    });

    it('validation_error 400 on /slippage_bps outside 0 to 10000', async () => {
      const r = await swap(agent, swapBody('USDC', 'SOL', 1, { slippage_bps: 10_001 }));
      expect(r.body).toEqual({
        error: 'validation_error',
        message: expect.any(String),
        details: [{ path: '/slippage_bps', issue: expect.any(String) }],
      });
    });

    it('invalid_mint 400 for a pair no pool trades (a receipt token): the aggregator answers, with no route', async () => {
      expectError(await swap(agent, swapBody('USDC', 'kUSDC', 1)), 400, 'invalid_mint');
    });

    it('unauthorized 401 without a key', async () => {
      const r = await world.client.call('POST', '/api/v1/swap', { body: swapBody('USDC', 'SOL', 1) });
      expectError(r, 401, 'unauthorized');
    });
  });

  it('per_tx_limit_exceeded 403, on the value: 1 SOL is worth about 100 USDC against a limit of 50', async () => {
    const agent = await world.agent({ per_tx_limit: 50, daily_limit: 1000, hourly_tx_cap: 10 }, 100);
    await airdrop(agent.id, 2, 'SOL');
    expectError(await swap(agent, swapBody('SOL', 'USDC', 1)), 403, 'per_tx_limit_exceeded');
    expectError(await swap(agent, swapBody('USDC', 'SOL', 50.000001)), 403, 'per_tx_limit_exceeded');
    expect(await limits(agent)).toEqual(
      expect.objectContaining({ daily_remaining: 1000, hourly_tx_remaining: 10 }),
    );
    expect(await onChain(agent.id, 'SOL')).toBe(2_000_000_000n);
  });

  it('daily_limit_exceeded 403, then hourly_cap_exceeded 403', async () => {
    const agent = await world.agent({ per_tx_limit: 100, daily_limit: 150, hourly_tx_cap: 3 }, 1000);
    expect((await swap(agent, swapBody('USDC', 'SOL', 100))).status).toBe(200);
    expectError(await swap(agent, swapBody('USDC', 'SOL', 50.000001)), 403, 'daily_limit_exceeded');
    expect((await swap(agent, swapBody('USDC', 'SOL', 1))).status).toBe(200);
    expect((await swap(agent, swapBody('USDC', 'SOL', 1))).status).toBe(200);
    expectError(await swap(agent, swapBody('USDC', 'SOL', 1)), 403, 'hourly_cap_exceeded');
    expect(await limits(agent)).toEqual(
      expect.objectContaining({ daily_remaining: 48, hourly_tx_remaining: 0 }),
    );
    expect(await onChain(agent.id, 'USDC')).toBe(898_000_000n);
  });

  it('insufficient_balance 400 for SOL the agent does not have, account_not_initialized 400 for none: the room comes back', async () => {
    const agent = await world.agent({ per_tx_limit: 1000, daily_limit: 1000, hourly_tx_cap: 10 }, 0);
    await airdrop(agent.id, 0.5, 'SOL');
    expectError(await swap(agent, swapBody('SOL', 'USDC', 1)), 400, 'insufficient_balance');
    const none = await world.agent({ per_tx_limit: 1000, daily_limit: 1000, hourly_tx_cap: 10 }, 100);
    expectError(await swap(none, swapBody('SOL', 'USDC', 1)), 400, 'account_not_initialized');
    // A failed intent gives its room back.
    for (const a of [agent, none])
      expect(await limits(a)).toEqual(
        expect.objectContaining({ daily_remaining: 1000, hourly_tx_remaining: 10 }),
      );
    expect(await onChain(agent.id, 'SOL')).toBe(500_000_000n);
    expect(await onChain(none.id, 'USDC')).toBe(100_000_000n);
  });
});

// ---- a transfer in another token than the base token -------------------------------------------

describe('POST /api/v1/transfer in SOL', () => {
  it('is valued in USDC at the quote, and its fee is taken in SOL', async () => {
    const agent = await world.agent({ per_tx_limit: 1000, daily_limit: 1000, hourly_tx_cap: 10 }, 0);
    const peer = await world.agent({}, 0);
    await airdrop(agent.id, 2, 'SOL');
    const treasury = await onChain(world.service.ctx.chain.treasury, 'SOL');
    const { usdc, sol } = await reserves();
    const value = poolOut(1_000_000_000n, sol, usdc);
    const r = await world.client.call('POST', '/api/v1/transfer', {
      token: agent.key,
      body: { to: peer.id, amount: 1, mint: SOL().mint, idempotency_key: key() },
    });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      tx_sig: expect.any(String),
      status: 'confirmed',
      net_amount: 0.999,
      protocol_fee: 0.001,
      daily_remaining: human(1_000_000_000n - value, 6),
      hourly_tx_remaining: 9,
    });
    expect(await onChain(peer.id, 'SOL')).toBe(999_000_000n);
    expect(await onChain(agent.id, 'SOL')).toBe(1_000_000_000n);
    expect((await onChain(world.service.ctx.chain.treasury, 'SOL')) - treasury).toBe(1_000_000n);
  });
});

// ---- deposit and withdraw -----------------------------------------------------------------------

describe('POST /api/v1/deposit and /withdraw', () => {
  let program: string;
  beforeAll(async () => {
    program = await venue();
  });

  it('whitelist_violation 403 while the venue is not allow-listed; nothing moves', async () => {
    const agent = await world.agent({ per_tx_limit: 100, daily_limit: 1000, hourly_tx_cap: 10 }, 100);
    expectError(
      await lend('deposit', agent, { lending_program: program, amount: 10 }),
      403,
      'whitelist_violation',
    );
    expectError(
      await lend('withdraw', agent, { lending_program: program, amount: 10 }),
      403,
      'whitelist_violation',
    );
    expect(await onChain(agent.id, 'USDC')).toBe(100_000_000n);
    expect(await limits(agent)).toEqual(
      expect.objectContaining({ daily_remaining: 1000, hourly_tx_remaining: 10 }),
    );
  });

  describe('once the operator allow-lists the venue (type 2)', () => {
    beforeAll(async () => {
      await world.allow({ address: program, type: 2, label: 'local venue' });
    });

    it('deposit confirms: the agent pays USDC into the vault and holds kUSDC; it counts as a spend', async () => {
      const agent = await world.agent({ per_tx_limit: 500, daily_limit: 1000, hourly_tx_cap: 10 }, 1000);
      const rate = await venueRate();
      const vault = await onChain(venueAuthority(), 'USDC');
      const r = await lend('deposit', agent, { lending_program: program, amount: 250, mint: USDC().mint });
      expect(r.status).toBe(200);
      expect(r.body).toEqual({ tx_sig: expect.any(String), status: 'confirmed', deposited_amount: 250 });
      expect(await world.service.ctx.chain.status(r.body.tx_sig as string)).toBe('confirmed');
      const receipt = (250_000_000n * rate.denominator) / rate.numerator; // floor(amount / rate)
      expect(await onChain(agent.id, 'kUSDC')).toBe(receipt);
      expect(await onChain(agent.id, 'USDC')).toBe(750_000_000n);
      expect((await onChain(venueAuthority(), 'USDC')) - vault).toBe(250_000_000n);
      const balance = await world.client.call('GET', '/api/v1/balance', { token: agent.key });
      expect(balance.body).toEqual(
        expect.objectContaining({
          balances: expect.objectContaining({ USDC: 750, kUSDC: human(receipt, 6) }),
          daily_remaining: 750,
          hourly_tx_remaining: 9,
        }),
      );
    });

    it('withdraw confirms with received_amount; it counts toward the hourly cap only', async () => {
      // Daily limit 100: the deposit uses all of it, and the withdrawal needs none.
      const agent = await world.agent({ per_tx_limit: 100, daily_limit: 100, hourly_tx_cap: 3 }, 100);
      expect((await lend('deposit', agent, { lending_program: program, amount: 100 })).status).toBe(200);
      const held = await onChain(agent.id, 'kUSDC');
      const rate = await venueRate();
      const r = await lend('withdraw', agent, { lending_program: program, amount: human(held / 2n, 6) });
      expect(r.status).toBe(200);
      const paid = ((held / 2n) * rate.numerator) / rate.denominator; // floor(receipt × rate)
      expect(r.body).toEqual({
        tx_sig: expect.any(String),
        status: 'confirmed',
        received_amount: human(paid, 6),
      });
      expect(await onChain(agent.id, 'kUSDC')).toBe(held - held / 2n);
      expect(await onChain(agent.id, 'USDC')).toBe(paid);
      expect(await limits(agent)).toEqual(
        expect.objectContaining({ daily_remaining: 0, hourly_tx_remaining: 1 }),
      );
      // The position can be named by its receipt token too.
      const rest = await lend('withdraw', agent, {
        lending_program: program,
        mint: KUSDC().mint,
        amount: human(held - held / 2n, 6),
      });
      expect(rest.status).toBe(200);
      expect(await onChain(agent.id, 'kUSDC')).toBe(0n);
      expectError(
        await lend('withdraw', agent, { lending_program: program, amount: 1 }),
        403,
        'hourly_cap_exceeded',
      );
      const balance = await world.client.call('GET', '/api/v1/balance', { token: agent.key });
      expect(balance.body).toEqual(
        expect.objectContaining({
          balances: expect.objectContaining({ kUSDC: 0, USDC: human(await onChain(agent.id, 'USDC'), 6) }),
          daily_remaining: 0,
          hourly_tx_remaining: 0,
        }),
      );
    });

    it('accepts klend’s own instruction data as cpi_data; other data is validation_error 400 on /cpi_data', async () => {
      const agent = await world.agent({ per_tx_limit: 100, daily_limit: 1000, hourly_tx_cap: 10 }, 100);
      const ok = await lend('deposit', agent, {
        lending_program: program,
        amount: 10,
        cpi_data: klendData(DEPOSIT_RESERVE_LIQUIDITY, 10_000_000n),
      });
      expect(ok.status).toBe(200);
      const held = await onChain(agent.id, 'kUSDC');
      const cpi = (body: Record<string, unknown>) =>
        lend('deposit', agent, { lending_program: program, amount: 10, ...body });
      for (const cpi_data of [
        [1, 2, 3], // no layout
        klendData(DEPOSIT_RESERVE_LIQUIDITY, 9_000_000n), // another amount
        klendData(REDEEM_RESERVE_COLLATERAL, 10_000_000n), // another instruction
      ]) {
        const r = await cpi({ cpi_data });
        expect(r.body).toEqual({
          error: 'validation_error',
          message: expect.any(String),
          details: [{ path: '/cpi_data', issue: expect.any(String) }],
        });
      }
      const out = await lend('withdraw', agent, {
        lending_program: program,
        amount: human(held, 6),
        cpi_data: klendData(REDEEM_RESERVE_COLLATERAL, held),
      });
      expect(out.status).toBe(200);
      expect(await limits(agent)).toEqual(
        expect.objectContaining({ daily_remaining: 990, hourly_tx_remaining: 8 }),
      );
    });

    it('refuses a program that is allow-listed but no lending venue (validation_error 400), a receipt token deposited (invalid_mint 400)', async () => {
      const agent = await world.agent({ per_tx_limit: 100, daily_limit: 1000, hourly_tx_cap: 10 }, 100);
      // The aggregator is a type-2 entry of every group, and no lending venue: the field is wrong.
      const aggregator = (await world.client.call<PoolsReply>('GET', '/api/v1/pools')).body.aggregator;
      const notAVenue = await lend('deposit', agent, { lending_program: aggregator, amount: 1 });
      expect(notAVenue.body).toEqual({
        error: 'validation_error',
        message: expect.any(String),
        details: [{ path: '/lending_program', issue: expect.any(String) }],
      });
      // A program that is not allow-listed at all is a policy refusal (intents/policy.e2e.spec.ts).
      expectError(
        await lend('deposit', agent, { lending_program: generateSigner().address, amount: 1 }),
        403,
        'whitelist_violation',
      );
      expectError(
        await lend('deposit', agent, { lending_program: program, amount: 1, mint: KUSDC().mint }),
        400,
        'invalid_mint',
      );
      expectError(
        await lend('deposit', agent, { lending_program: program, amount: 0 }),
        400,
        'invalid_amount',
      );
      expect(await limits(agent)).toEqual(
        expect.objectContaining({ daily_remaining: 1000, hourly_tx_remaining: 10 }),
      );
    });

    it('per_tx_limit_exceeded and daily_limit_exceeded 403 on deposits', async () => {
      const agent = await world.agent({ per_tx_limit: 50, daily_limit: 80, hourly_tx_cap: 10 }, 100);
      expectError(
        await lend('deposit', agent, { lending_program: program, amount: 51 }),
        403,
        'per_tx_limit_exceeded',
      );
      expect((await lend('deposit', agent, { lending_program: program, amount: 50 })).status).toBe(200);
      expectError(
        await lend('deposit', agent, { lending_program: program, amount: 31 }),
        403,
        'daily_limit_exceeded',
      );
      expect(await onChain(agent.id, 'USDC')).toBe(50_000_000n);
    });

    it('insufficient_balance 400 for more than the agent holds, account_not_initialized 400 for no position', async () => {
      const agent = await world.agent({ per_tx_limit: 1000, daily_limit: 1000, hourly_tx_cap: 10 }, 20);
      expectError(
        await lend('deposit', agent, { lending_program: program, amount: 21 }),
        400,
        'insufficient_balance',
      );
      expectError(
        await lend('withdraw', agent, { lending_program: program, amount: 1 }),
        400,
        'account_not_initialized',
      );
      expect((await lend('deposit', agent, { lending_program: program, amount: 20 })).status).toBe(200);
      const held = await onChain(agent.id, 'kUSDC');
      expectError(
        await lend('withdraw', agent, { lending_program: program, amount: human(held + 1n, 6) }),
        400,
        'insufficient_balance',
      );
      expect(await onChain(agent.id, 'kUSDC')).toBe(held);
      expect(await limits(agent)).toEqual(
        expect.objectContaining({ daily_remaining: 980, hourly_tx_remaining: 9 }),
      );
    });

    // Moving the clock of the topology's chain node would move the rate under every other suite of the
    // run: on the topology, the venue over the chain node is tested in shared/src/venues/local.int.spec.ts.
    (onSharedChain ? it.skip : it)(
      'pays interest: a year on the chain’s clock later, a withdrawal pays 5 % more',
      async () => {
        const agent = await world.agent({ per_tx_limit: 1000, daily_limit: 1000, hourly_tx_cap: 10 }, 1000);
        const before = await venueRate();
        expect((await lend('deposit', agent, { lending_program: program, amount: 1000 })).status).toBe(200);
        const held = await onChain(agent.id, 'kUSDC');
        await (world.service.ctx.chain as unknown as LocalChain).warp(365n * 86_400n);
        const after = await venueRate();
        // A year compounds the yearly rate once: rate × 1.05, whatever the rate was.
        expect(after.numerator * before.denominator * 100n).toBe(before.numerator * after.denominator * 105n);
        const r = await lend('withdraw', agent, { lending_program: program, amount: human(held, 6) });
        expect(r.status).toBe(200);
        const paid = (held * after.numerator) / after.denominator;
        expect(r.body.received_amount).toBe(human(paid, 6));
        expect(await onChain(agent.id, 'USDC')).toBe(paid);
        // On a venue created at this chain's start, the rate was 1: 1,000 USDC comes back as 1,050.
        if (before.numerator === before.denominator) expect(paid).toBe(1_050_000_000n);
      },
    );
  });
});
