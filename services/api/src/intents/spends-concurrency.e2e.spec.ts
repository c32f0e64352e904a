/**
 * Swaps and deposits under real parallel requests, on the embedded default and on the topology. Each
 * test fires its requests at once and counts what happened: on the API, in the views and on the
 * chain. Every swap's output is checked against the pool's constant-product math in the order the
 * swaps landed, so two swaps priced on the same reserves would show. After every test, per mint, the
 * supply on chain equals what its holders hold (testing/conservation.ts).
 */
import Big from 'big.js';
import { openBooks } from '@tokenops/testing/conservation';
import { key, startWorld, tally, type Reply, type World } from '@tokenops/testing/harness';

let world: World;
let books: Awaited<ReturnType<typeof openBooks>>;
beforeAll(async () => {
  world = await startWorld({ rateLimitPerMinute: 10_000, databaseThread: true });
  books = await openBooks(world);
});
afterEach(async () => {
  await books.expectBalanced();
});
afterAll(async () => world?.close());

type Agent = { id: string; key: string };

const token = (symbol: string) => world.service.ctx.chain.tokens.find((t) => t.symbol === symbol)!;
const units = (amount: number | string, decimals: number): bigint =>
  BigInt(new Big(String(amount)).times(new Big(10).pow(decimals)).toFixed(0));
const human = (amount: bigint, decimals: number): number =>
  Number(new Big(amount.toString()).div(new Big(10).pow(decimals)).toFixed());
const poolOut = (amountIn: bigint, reserveIn: bigint, reserveOut: bigint): bigint =>
  (amountIn * 9970n * reserveOut) / (reserveIn * 10_000n + amountIn * 9970n);

async function reserves(): Promise<{ usdc: bigint; sol: bigint }> {
  const r = await world.client.call<{
    pools: { pair: string; reserves: { symbol: string; reserve: number }[] }[];
  }>('GET', '/api/v1/pools');
  const pool = r.body.pools.find((p) => p.pair === 'USDC/SOL')!;
  const of = (symbol: string) => pool.reserves.find((x) => x.symbol === symbol)!.reserve;
  return { usdc: units(of('USDC'), 6), sol: units(of('SOL'), 9) };
}

const onChain = async (owner: string, symbol: string) =>
  (await world.service.ctx.chain.tokenAccount(owner, token(symbol).mint)).amount;

const swapUsdcForSol = (agent: Agent, amount: number, extra: Record<string, unknown> = {}) =>
  world.client.call('POST', '/api/v1/swap', {
    token: agent.key,
    body: {
      from_token: 'USDC',
      to_token: 'SOL',
      from_mint: token('USDC').mint,
      to_mint: token('SOL').mint,
      amount,
      idempotency_key: key(),
      ...extra,
    },
  });

/**
 * The outputs of `count` swaps of `amountIn` USDC each, landed one after the other on these reserves:
 * each priced on the reserves the previous one left (so each pays a little less than the one before).
 */
function serialOutputs(count: number, amountIn: bigint, start: { usdc: bigint; sol: bigint }): bigint[] {
  const outs: bigint[] = [];
  let { usdc, sol } = start;
  for (let i = 0; i < count; i++) {
    const out = poolOut(amountIn, usdc, sol);
    outs.push(out);
    usdc += amountIn;
    sol -= out;
  }
  return outs;
}

const receivedOf = (replies: Reply[]) =>
  replies.filter((r) => r.status === 200).map((r) => units(r.body.received_amount as number, 9));
const descending = (xs: bigint[]) => [...xs].sort((a, b) => (a > b ? -1 : a < b ? 1 : 0));

describe('50 parallel swaps of one agent whose daily limit allows exactly 17', () => {
  it('confirms exactly 17, the rest daily_limit_exceeded; the limits, the chain and the pool agree', async () => {
    const agent = await world.agent({ per_tx_limit: 10, daily_limit: 170, hourly_tx_cap: 1000 }, 1000);
    const before = await reserves();
    const replies = await Promise.all(Array.from({ length: 50 }, () => swapUsdcForSol(agent, 10)));
    expect(tally(replies)).toEqual({ confirmed: 17, daily_limit_exceeded: 33 });

    const confirmed = replies.filter((r) => r.status === 200);
    const sigs = new Set(confirmed.map((r) => r.body.tx_sig as string));
    expect(sigs.size).toBe(17);
    for (const sig of sigs) expect(await world.service.ctx.chain.status(sig)).toBe('confirmed');
    // Priced one after the other: 17 different outputs, each the pool's math on the reserves before it.
    const received = receivedOf(replies);
    expect(descending(received)).toEqual(serialOutputs(17, 10_000_000n, before));
    const total = received.reduce((a, b) => a + b, 0n);
    expect(await onChain(agent.id, 'USDC')).toBe(830_000_000n);
    expect(await onChain(agent.id, 'SOL')).toBe(total);
    expect(await reserves()).toEqual({ usdc: before.usdc + 170_000_000n, sol: before.sol - total });

    const limits = await world.client.call('GET', '/api/v1/limits', { token: agent.key });
    expect(limits.body).toEqual(expect.objectContaining({ daily_remaining: 0, hourly_tx_remaining: 983 }));
    const history = await world.client.call<{ transactions: unknown[] }>('GET', '/api/v1/history?limit=100', {
      token: agent.key,
    });
    expect(history.body.transactions).toHaveLength(17);
  });
});

// On the server topology the two executors would build swaps of the one pool on the same reserves, and
// both would land, each paying the output of those reserves, unless the pool's lock holds across
// processes (workers/executor/src/locks.ts: a Redis mutex per pool). This is the test of that lock.
describe('one pool, many agents at once', () => {
  it('prices each swap on the reserves the previous one left: the outputs are the serial math, none twice', async () => {
    const agents = await Promise.all(
      Array.from({ length: 8 }, () =>
        world.agent({ per_tx_limit: 10_000, daily_limit: 10_000, hourly_tx_cap: 10 }, 5_000),
      ),
    );
    const before = await reserves();
    // 0.5 % of the pool each: priced twice on the same reserves, the pool would pay out visibly more.
    const replies = await Promise.all(agents.map((a) => swapUsdcForSol(a, 5_000, { slippage_bps: 1_000 })));
    expect(tally(replies)).toEqual({ confirmed: 8 });
    const received = receivedOf(replies);
    expect(descending(received)).toEqual(serialOutputs(8, 5_000_000_000n, before));
    const total = received.reduce((a, b) => a + b, 0n);
    expect(await reserves()).toEqual({ usdc: before.usdc + 40_000_000_000n, sol: before.sol - total });
    // The product of the reserves never decreases (the fee stays in the pool).
    const after = await reserves();
    expect(after.usdc * after.sol).toBeGreaterThanOrEqual(before.usdc * before.sol);
  });
});

describe('swaps racing a price move', () => {
  it('no swap executes below its minimum: each confirms at or above it, or fails and spends nothing', async () => {
    const swappers = await Promise.all(
      Array.from({ length: 4 }, () =>
        world.agent({ per_tx_limit: 1_000, daily_limit: 10_000, hourly_tx_cap: 100 }, 1_000),
      ),
    );
    const whale = await world.agent(
      { per_tx_limit: 200_000, daily_limit: 200_000, hourly_tx_cap: 10 },
      150_000,
    );
    const { usdc, sol } = await reserves();
    // What 100 USDC buys now, less 1 %, at 6 decimals. The small swaps together move the price by
    // about 0.4 %; the whale (15 % of the pool) by about a quarter: a swap landing after it falls below.
    const minimum = human(((poolOut(100_000_000n, usdc, sol) * 99n) / 100n / 1000n) * 1000n, 9);
    const smallSwaps = () =>
      swappers.flatMap((a) =>
        Array.from({ length: 3 }, () => swapUsdcForSol(a, 100, { minimum_amount_out: minimum })),
      );
    // Some sent before the whale, some after, all at once.
    const before = smallSwaps();
    const whaleReply = swapUsdcForSol(whale, 150_000, { slippage_bps: 1_000 });
    const after = smallSwaps();
    const small = await Promise.all(before.map((b, i) => [b, after[i]!]).flat());
    expect((await whaleReply).status).toBe(200);
    // And once the price has moved, the same minimum is refused before anything is reserved.
    const late = await swapUsdcForSol(swappers[0]!, 100, { minimum_amount_out: minimum });

    const outcomes = tally(small);
    console.log(`swaps racing the whale: ${JSON.stringify(outcomes)}`);
    for (const r of small) {
      if (r.status === 200) {
        expect(units(r.body.received_amount as number, 9)).toBeGreaterThanOrEqual(units(minimum, 9));
      } else if (r.status === 502) {
        // Accepted at the old price, re-quoted by the executor after the whale: nothing submitted.
        expect(r.body.error).toBe('aggregator_unavailable');
      } else {
        // Decided after the whale landed: the quote is below the minimum already.
        expect(r.status).toBe(400);
        expect(r.body).toEqual(
          expect.objectContaining({
            error: 'validation_error',
            details: [{ path: '/minimum_amount_out', issue: expect.any(String) }],
          }),
        );
      }
    }
    expect(late.status).toBe(400);

    // What failed spent nothing and gave its room back; what confirmed paid 100 USDC and holds its SOL.
    for (const [i, agent] of swappers.entries()) {
      const mine = small.slice(i * 6, i * 6 + 6);
      const ok = mine.filter((r) => r.status === 200);
      expect(await onChain(agent.id, 'USDC')).toBe(1_000_000_000n - BigInt(ok.length) * 100_000_000n);
      expect(await onChain(agent.id, 'SOL')).toBe(receivedOf(ok).reduce((a, b) => a + b, 0n));
      const limits = await world.client.call('GET', '/api/v1/limits', { token: agent.key });
      expect(limits.body.daily_remaining).toBe(10_000 - ok.length * 100);
    }
  });
});

describe('20 parallel deposits of one agent whose daily limit allows exactly 7', () => {
  it('confirms exactly 7, the rest daily_limit_exceeded; the receipt tokens match', async () => {
    const venues = await world.client.call<{ venues: { lending_program: string }[] }>(
      'GET',
      '/api/v1/venues',
    );
    const program = venues.body.venues[0]!.lending_program;
    await world.allow({ address: program, type: 2 });
    const agent = await world.agent({ per_tx_limit: 10, daily_limit: 70, hourly_tx_cap: 1000 }, 100);
    const replies = await Promise.all(
      Array.from({ length: 20 }, () =>
        world.client.call('POST', '/api/v1/deposit', {
          token: agent.key,
          body: { lending_program: program, amount: 10, idempotency_key: key() },
        }),
      ),
    );
    expect(tally(replies)).toEqual({ confirmed: 7, daily_limit_exceeded: 13 });
    expect(await onChain(agent.id, 'USDC')).toBe(30_000_000n);
    const balance = await world.client.call<{ balances: Record<string, number> }>('GET', '/api/v1/balance', {
      token: agent.key,
    });
    expect(balance.body.balances.USDC).toBe(30);
    expect(units(balance.body.balances.kUSDC!, 6)).toBe(await onChain(agent.id, 'kUSDC'));
    expect(await onChain(agent.id, 'kUSDC')).toBeGreaterThan(0n);
  });
});
