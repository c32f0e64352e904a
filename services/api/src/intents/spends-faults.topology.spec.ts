/**
 * An executor killed (-9) in the middle of a burst of swaps, on a server topology of this suite's own
 * (two API instances, two executors, a projector, the chain node, as processes). With the executor
 * started again and every swap asked again with its key: each swap landed once, whatever became of
 * the job it was in (exact balances of every agent and of the pool, one outcome per intent), every
 * unit of every mint is held by someone, and the read models equal a replay of the log.
 */
import Big from 'big.js';
import { openBooks } from '@tokenops/testing/conservation';
import { key, startWorld, type Reply, type World } from '@tokenops/testing/harness';
import { Topology } from '@tokenops/testing/topology';
import { info } from '@tokenops/testing/transfers';
import { setTimeout as sleep } from 'node:timers/promises';

jest.setTimeout(240_000);

const units = (amount: number, decimals: number): bigint =>
  BigInt(new Big(String(amount)).times(new Big(10).pow(decimals)).toFixed(0));

interface Swap {
  token: string;
  body: Record<string, unknown>;
}

let topology: Topology;
let world: World;
beforeAll(async () => {
  topology = await new Topology({
    apis: 2,
    executors: 2,
    projectors: 1,
    // A dead executor's jobs move to the other after 2 s.
    env: { EXECUTOR_LOCK_MS: '2000', RATE_LIMIT_PER_MINUTE: '100000', CHECK_RESPONSES: 'true' },
  }).start();
  world = await startWorld({}, info(topology));
});
afterAll(async () => {
  await world?.close();
  await topology?.destroy();
});

/** Asks each swap again (same key) until every one has its final answer. */
async function settleAll(swaps: Swap[], timeoutMs = 120_000): Promise<Reply[]> {
  const deadline = Date.now() + timeoutMs;
  const answers: (Reply | undefined)[] = swaps.map(() => undefined);
  const final = (a: Reply | undefined) => a !== undefined && a.status !== 409 && a.status < 500;
  while (!answers.every(final)) {
    await Promise.all(
      swaps.map(async (s, i) => {
        if (final(answers[i])) return;
        answers[i] = await world.client
          .call('POST', '/api/v1/swap', { token: s.token, body: s.body })
          .catch(() => undefined);
      }),
    );
    if (Date.now() > deadline)
      throw new Error(`not settled: ${JSON.stringify(answers.filter((a) => !final(a)).slice(0, 3))}`);
    if (!answers.every(final)) await sleep(250);
  }
  return answers as Reply[];
}

const mintOf = (symbol: string) => world.service.ctx.chain.tokens.find((t) => t.symbol === symbol)!.mint;
const onChain = async (owner: string, symbol: string) =>
  (await world.service.ctx.chain.tokenAccount(owner, mintOf(symbol))).amount;

async function reserves(): Promise<{ usdc: bigint; sol: bigint }> {
  const r = await world.client.call<{
    pools: { pair: string; reserves: { symbol: string; reserve: number }[] }[];
  }>('GET', '/api/v1/pools');
  const pool = r.body.pools.find((p) => p.pair === 'USDC/SOL')!;
  const of = (symbol: string) => pool.reserves.find((x) => x.symbol === symbol)!.reserve;
  return { usdc: units(of('USDC'), 6), sol: units(of('SOL'), 9) };
}

it('an executor killed in the middle of a burst of swaps: each swap lands once, the balances are exact', async () => {
  const books = await openBooks(world, { ownChain: true });
  const senders = await Promise.all(
    Array.from({ length: 4 }, () =>
      world.agent({ per_tx_limit: 100, daily_limit: 100_000, hourly_tx_cap: 1_000 }, 1_000),
    ),
  );
  const before = await reserves();
  const swaps: Swap[] = senders.flatMap((s) =>
    Array.from({ length: 15 }, () => ({
      token: s.key,
      body: {
        from_token: 'USDC',
        to_token: 'SOL',
        from_mint: mintOf('USDC'),
        to_mint: mintOf('SOL'),
        amount: 10,
        slippage_bps: 1_000,
        idempotency_key: key(),
      },
    })),
  );
  const confirmedSoFar = async () => (await world.log()).filter((e) => e.type === 'intent.confirmed').length;
  const first = Promise.all(
    swaps.map((s) =>
      world.client.call('POST', '/api/v1/swap', { token: s.token, body: s.body }).catch(() => undefined),
    ),
  );
  // Kill one executor once some of the burst has settled, but not all of it.
  for (let i = 0; i < 400 && (await confirmedSoFar()) < 5; i++) await sleep(25);
  const [victim] = topology.byRole('executor');
  await victim!.kill('SIGKILL');
  expect(await confirmedSoFar()).toBeLessThan(swaps.length);
  await first;
  await victim!.restart();

  const answers = await settleAll(swaps);
  expect(answers.map((a) => a.status)).toEqual(swaps.map(() => 200));
  const sigs = answers.map((a) => a.body.tx_sig as string);
  expect(new Set(sigs).size).toBe(swaps.length);
  for (const sig of sigs) expect(await world.service.ctx.chain.status(sig)).toBe('confirmed');

  // One outcome per intent in the log, and it is the answer's.
  const outcomes = new Map<string, string[]>();
  for (const e of await world.log()) {
    if (e.type !== 'intent.confirmed' && e.type !== 'intent.failed') continue;
    const d = e.data as { intent_id: string; tx_sig?: string };
    outcomes.set(d.intent_id, [...(outcomes.get(d.intent_id) ?? []), d.tx_sig ?? 'failed']);
  }
  const swapOutcomes = [...outcomes.values()].filter((o) => o.some((s) => sigs.includes(s)));
  expect(swapOutcomes).toHaveLength(swaps.length);
  for (const o of swapOutcomes) expect(o).toHaveLength(1);

  // A swap landed twice would show in its agent's balances and in the pool's.
  let total = 0n;
  for (const [i, s] of senders.entries()) {
    const mine = answers.slice(i * 15, i * 15 + 15);
    const received = mine.reduce((sum, a) => sum + units(a.body.received_amount as number, 9), 0n);
    total += received;
    expect(await onChain(s.id, 'USDC')).toBe(850_000_000n);
    expect(await onChain(s.id, 'SOL')).toBe(received);
  }
  expect(await reserves()).toEqual({ usdc: before.usdc + 600_000_000n, sol: before.sol - total });
  await books.expectBalanced();

  const check = await topology.run('replay', ['--verify']);
  expect(check.output).toContain('equal a replay of the log');
  expect(check.code).toBe(0);
});
