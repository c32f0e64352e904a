/**
 * The local aggregator on the real Solana runtime (LiteSVM, in memory): pools seeded once, real swap
 * transactions through the SPL Token program, and the same pools reached over JSON-RPC (the chain
 * node), as the executors of the server topology reach them.
 */
import { classifyChainFailure } from '../domain/chain-outcome';
import { swapOut } from '../domain/pool';
import { generateSigner, type Signer } from '../chain/keys';
import { LiteSvmChain } from '../chain/litesvm';
import { ChainFailure, type Chain, type LocalChain } from '../chain/port';
import { RpcChain } from '../chain/rpc';
import { serveChainRpc } from '../chain/rpc-node';
import { settingsFor } from '../process/settings';
import { LocalAggregator, ensureLocalPools, type LocalPool } from './local';
import { AggregatorUnavailable, BelowMinimum, NoRoute } from './port';
import { aggregatorContract } from './contract';

const SEED = 'aggregator-test';

aggregatorContract('local pools (LiteSVM)', async () => {
  const chain = await LiteSvmChain.open({ seed: 'contract' });
  await ensureLocalPools(chain, 'contract');
  const [usdc, sol] = chain.tokens;
  return {
    aggregator: new LocalAggregator({ chain, seed: 'contract' }),
    build: chain,
    inputMint: usdc!.mint,
    outputMint: sol!.mint,
    amount: 1_000_000n,
    unrouted: generateSigner().address,
    agent: generateSigner().address,
    close: () => chain.close(),
  };
});

async function failureOf(p: Promise<unknown>): Promise<unknown> {
  const outcome = await p.then(
    () => ({ failed: false, error: undefined as unknown }),
    (error: unknown) => ({ failed: true, error }),
  );
  if (!outcome.failed) throw new Error('expected a failure');
  return outcome.error;
}

describe('the local aggregator (LiteSVM)', () => {
  let chain: LiteSvmChain;
  let aggregator: LocalAggregator;
  const usdc = () => chain.tokens.find((t) => t.symbol === 'USDC')!;
  const sol = () => chain.tokens.find((t) => t.symbol === 'SOL')!;
  const pool = async (): Promise<LocalPool> => (await aggregator.pools())[0]!;
  const reserves = async () => (await pool()).tokens.map((t) => t.reserve);
  const balance = async (owner: string, mint: string) => (await chain.tokenAccount(owner, mint)).amount;

  /** Builds, signs (agent + pool authority) and submits a swap, as the executor will. */
  const execute = async (agent: Signer, request: Parameters<LocalAggregator['swap']>[0]) => {
    const prepared = await aggregator.swap(request, chain);
    const tx = await chain.prepare(prepared.instructions, [agent, ...prepared.signers]);
    await chain.submit(tx);
    return { prepared, tx };
  };

  beforeAll(async () => {
    chain = await LiteSvmChain.open({ seed: SEED });
    await ensureLocalPools(chain, SEED);
    aggregator = new LocalAggregator({ chain, seed: SEED });
  });
  afterAll(async () => {
    await chain.close();
  });

  it('is the aggregator address every group allow-lists on this chain', () => {
    expect(aggregator.address).toBe(settingsFor({ kind: 'local', seed: SEED }).aggregator);
  });

  it('seeds USDC/SOL once with 1,000,000 USDC against 10,000 SOL at a 0.30 % fee; seeding again does nothing', async () => {
    const seeded = await pool();
    expect(seeded).toEqual(
      expect.objectContaining({
        pair: 'USDC/SOL',
        feeBps: 30,
        lockKey: `local-pool:${seeded.authority}`,
      }),
    );
    expect(seeded.tokens.map((t) => [t.symbol, t.reserve])).toEqual([
      ['USDC', 1_000_000_000_000n],
      ['SOL', 10_000_000_000_000n],
    ]);
    for (const side of seeded.tokens)
      expect(side.vault).toBe((await chain.tokenAccount(seeded.authority, side.mint)).address);
    await ensureLocalPools(chain, SEED);
    expect(await reserves()).toEqual([1_000_000_000_000n, 10_000_000_000_000n]);
  });

  it('quotes from the live reserves: output, threshold at the slippage, price impact, route', async () => {
    const before = Date.now();
    const q = await aggregator.quote({
      inputMint: usdc().mint,
      outputMint: sol().mint,
      amount: 1_000_000n,
      slippageBps: 50,
    });
    const [rUsdc, rSol] = await reserves();
    const expected = swapOut(rUsdc!, rSol!, 1_000_000n);
    expect(q).toEqual({
      inputMint: usdc().mint,
      outputMint: sol().mint,
      inAmount: 1_000_000n,
      outAmount: expected.amountOut,
      otherAmountThreshold: expected.amountOut - (expected.amountOut * 50n) / 10_000n,
      slippageBps: 50,
      priceImpact: expected.priceImpact,
      route: ['local USDC/SOL'],
      expiresAt: expect.any(Number),
    });
    expect(q.outAmount).toBe(9_969_990n); // 1 USDC at 100 USDC a SOL, less the 0.30 % fee
    expect(q.expiresAt).toBeGreaterThan(before);
  });

  it('lands a swap in one transaction: the agent and the pool move exactly as quoted, the product does not decrease', async () => {
    const agent = generateSigner();
    await chain.mintTo(agent.address, usdc().mint, 10_000_000n, `airdrop-${agent.address}`);
    const [rUsdc, rSol] = await reserves();
    const quoted = await aggregator.quote({
      inputMint: usdc().mint,
      outputMint: sol().mint,
      amount: 2_500_000n,
      slippageBps: 50,
    });

    const { prepared, tx } = await execute(agent, {
      agent: agent.address,
      inputMint: usdc().mint,
      outputMint: sol().mint,
      amount: 2_500_000n,
      minimumOut: quoted.otherAmountThreshold,
      reference: 'intent:swap-1',
    });

    expect(prepared.quote.outAmount).toBe(quoted.outAmount);
    expect(prepared.lockKey).toBe((await pool()).lockKey);
    expect(await chain.status(tx.signature)).toBe('confirmed');
    expect(await balance(agent.address, usdc().mint)).toBe(7_500_000n);
    expect(await balance(agent.address, sol().mint)).toBe(quoted.outAmount); // its SOL account was created
    const [aUsdc, aSol] = await reserves();
    expect(aUsdc).toBe(rUsdc! + 2_500_000n);
    expect(aSol).toBe(rSol! - quoted.outAmount);
    expect(aUsdc! * aSol! >= rUsdc! * rSol!).toBe(true);
  });

  it('swaps the other way, SOL for USDC', async () => {
    const agent = generateSigner();
    await chain.mintTo(agent.address, sol().mint, 1_000_000_000n, `airdrop-${agent.address}`);
    const [rUsdc, rSol] = await reserves();
    const { prepared } = await execute(agent, {
      agent: agent.address,
      inputMint: sol().mint,
      outputMint: usdc().mint,
      amount: 1_000_000_000n,
      minimumOut: 1n,
      reference: 'intent:swap-2',
    });
    expect(prepared.quote.outAmount).toBe(swapOut(rSol!, rUsdc!, 1_000_000_000n).amountOut);
    expect(await balance(agent.address, sol().mint)).toBe(0n);
    expect(await balance(agent.address, usdc().mint)).toBe(prepared.quote.outAmount);
    const [aUsdc, aSol] = await reserves();
    expect([aUsdc, aSol]).toEqual([rUsdc! - prepared.quote.outAmount, rSol! + 1_000_000_000n]);
    expect(aUsdc! * aSol! >= rUsdc! * rSol!).toBe(true);
  });

  it('refuses with BelowMinimum, before anything is signed, when the live output fell under the minimum', async () => {
    const slow = generateSigner();
    const fast = generateSigner();
    await chain.mintTo(slow.address, usdc().mint, 5_000_000n, `airdrop-${slow.address}`);
    await chain.mintTo(fast.address, usdc().mint, 50_000_000_000n, `airdrop-${fast.address}`);
    const request = {
      agent: slow.address,
      inputMint: usdc().mint,
      outputMint: sol().mint,
      amount: 5_000_000n,
    };
    const quoted = await aggregator.quote({ ...request, slippageBps: 0 });
    // Another swap lands first and moves the price.
    await execute(fast, {
      ...request,
      agent: fast.address,
      amount: 50_000_000_000n,
      minimumOut: 1n,
      reference: 'intent:fast',
    });
    const before = await reserves();

    const err = await failureOf(
      aggregator.swap({ ...request, minimumOut: quoted.outAmount, reference: 'intent:slow' }, chain),
    );
    expect(err).toBeInstanceOf(BelowMinimum);
    expect((err as BelowMinimum).expected).toBe(quoted.outAmount);
    expect((err as BelowMinimum).live).toBe(swapOut(before[0]!, before[1]!, 5_000_000n).amountOut);
    expect((err as BelowMinimum).live < quoted.outAmount).toBe(true);
    expect(await reserves()).toEqual(before);
    expect(await balance(slow.address, usdc().mint)).toBe(5_000_000n);
    expect(await balance(slow.address, sol().mint)).toBe(0n);
  });

  it('refuses a dust swap whose live output is zero, even with no minimum', async () => {
    const err = await failureOf(
      aggregator.swap(
        {
          agent: generateSigner().address,
          inputMint: sol().mint,
          outputMint: usdc().mint,
          amount: 1n, // a billionth of a SOL: under a millionth of a USDC
          minimumOut: 0n,
          reference: 'intent:dust',
        },
        chain,
      ),
    );
    expect(err).toEqual(expect.objectContaining({ name: 'BelowMinimum', expected: 0n, live: 0n }));
  });

  it('fails on chain (insufficient funds) when the agent lacks the input, and moves nothing', async () => {
    const poor = generateSigner();
    await chain.mintTo(poor.address, usdc().mint, 500_000n, `airdrop-${poor.address}`);
    const before = await reserves();
    const err = await failureOf(
      execute(poor, {
        agent: poor.address,
        inputMint: usdc().mint,
        outputMint: sol().mint,
        amount: 1_000_000n,
        minimumOut: 1n,
        reference: 'intent:poor',
      }),
    );
    expect(err).toBeInstanceOf(ChainFailure);
    expect(classifyChainFailure(err as ChainFailure)).toBe('insufficient_balance');
    expect(await reserves()).toEqual(before);
    expect(await balance(poor.address, usdc().mint)).toBe(500_000n);
    expect(await balance(poor.address, sol().mint)).toBe(0n);
  });

  it('has no route for a mint it does not pool, nor from a mint to itself', async () => {
    const stranger = generateSigner().address;
    await expect(
      aggregator.quote({ inputMint: usdc().mint, outputMint: stranger, amount: 1n, slippageBps: 50 }),
    ).rejects.toBeInstanceOf(NoRoute);
    await expect(
      aggregator.quote({ inputMint: usdc().mint, outputMint: usdc().mint, amount: 1n, slippageBps: 50 }),
    ).rejects.toBeInstanceOf(NoRoute);
    // NoRoute is an AggregatorUnavailable: 502 aggregator_unavailable unless the caller says more.
    await expect(
      aggregator.quote({ inputMint: stranger, outputMint: sol().mint, amount: 1n, slippageBps: 50 }),
    ).rejects.toBeInstanceOf(AggregatorUnavailable);
  });
});

describe('the local aggregator without seeded pools, or with a chain that does not answer', () => {
  it('is unavailable while its pools hold nothing', async () => {
    const chain = await LiteSvmChain.open({ seed: 'unseeded' });
    const aggregator = new LocalAggregator({ chain, seed: 'unseeded' });
    const [usdc, sol] = chain.tokens;
    await expect(
      aggregator.quote({ inputMint: usdc!.mint, outputMint: sol!.mint, amount: 1_000_000n, slippageBps: 50 }),
    ).rejects.toThrow(/no reserves/);
    await chain.close();
  });

  it('answers AggregatorUnavailable when reading the reserves takes longer than its timeout', async () => {
    const live = await LiteSvmChain.open({ seed: 'hanging' });
    const hanging: Pick<Chain, 'tokens' | 'tokenAccount'> = {
      tokens: live.tokens,
      tokenAccount: () => new Promise(() => {}), // a chain node that never answers
    };
    const aggregator = new LocalAggregator({ chain: hanging, seed: 'hanging', timeoutMs: 100 });
    const started = Date.now();
    const err = await failureOf(
      aggregator.quote({
        inputMint: live.tokens[0]!.mint,
        outputMint: live.tokens[1]!.mint,
        amount: 1n,
        slippageBps: 50,
      }),
    );
    expect(err).toBeInstanceOf(AggregatorUnavailable);
    expect((err as Error).message).toMatch(/timed out after 100 ms/);
    expect(Date.now() - started).toBeLessThan(2_000);
    await live.close();
  });
});

describe('pools between every two registry tokens', () => {
  it('makes one pool per pair, each with its own authority and lock key, the same both ways', async () => {
    const tokens = [
      { symbol: 'USDC', decimals: 6 },
      { symbol: 'SOL', decimals: 9 },
      { symbol: 'BONK', decimals: 5 },
    ];
    const chain = await LiteSvmChain.open({ seed: 'three', tokens });
    await ensureLocalPools(chain, 'three');
    const aggregator = new LocalAggregator({ chain, seed: 'three' });
    const pools = await aggregator.pools();
    expect(pools.map((p) => p.pair)).toEqual(['USDC/SOL', 'USDC/BONK', 'SOL/BONK']);
    expect(new Set(pools.map((p) => p.authority)).size).toBe(3);
    expect(new Set(pools.map((p) => p.lockKey)).size).toBe(3);
    // An unlisted token is priced at 1 USD: 1,000,000 of it against 1,000,000 USDC.
    expect(pools[1]!.tokens.map((t) => t.reserve)).toEqual([1_000_000_000_000n, 100_000_000_000n]);

    const [usdc, sol, bonk] = chain.tokens;
    const agent = generateSigner();
    await chain.mintTo(agent.address, sol!.mint, 1_000_000_000n, 'airdrop');
    const build = (inputMint: string, outputMint: string) =>
      aggregator.swap(
        { agent: agent.address, inputMint, outputMint, amount: 1_000n, minimumOut: 1n, reference: 'r' },
        chain,
      );
    expect((await build(sol!.mint, bonk!.mint)).lockKey).toBe(pools[2]!.lockKey);
    expect((await build(bonk!.mint, sol!.mint)).lockKey).toBe(pools[2]!.lockKey);
    expect((await build(usdc!.mint, bonk!.mint)).lockKey).toBe(pools[1]!.lockKey);
    await chain.close();
  });
});

describe('the local aggregator over JSON-RPC (the chain node, as the server topology runs it)', () => {
  it('derives the same pools from the seed and lands a swap through the node', async () => {
    const backend = await LiteSvmChain.open({ seed: 'rpc-pools' });
    const node = await serveChainRpc(backend.node(), { port: 0 });
    const client: LocalChain = RpcChain.local(node.url, 'rpc-pools');
    try {
      await ensureLocalPools(client, 'rpc-pools'); // the chain node's start, or the embedded one
      const embedded = await new LocalAggregator({ chain: backend, seed: 'rpc-pools' }).pools();
      const aggregator = new LocalAggregator({ chain: client, seed: 'rpc-pools' });
      expect(await aggregator.pools()).toEqual(embedded);

      const [usdc, sol] = client.tokens;
      const agent = generateSigner();
      await client.mintTo(agent.address, usdc!.mint, 3_000_000n, 'airdrop');
      const prepared = await aggregator.swap(
        {
          agent: agent.address,
          inputMint: usdc!.mint,
          outputMint: sol!.mint,
          amount: 3_000_000n,
          minimumOut: 1n,
          reference: 'intent:rpc',
        },
        client,
      );
      await client.submit(await client.prepare(prepared.instructions, [agent, ...prepared.signers]));
      expect((await client.tokenAccount(agent.address, usdc!.mint)).amount).toBe(0n);
      expect((await client.tokenAccount(agent.address, sol!.mint)).amount).toBe(prepared.quote.outAmount);
    } finally {
      await node.close();
      await backend.close();
    }
  });
});
