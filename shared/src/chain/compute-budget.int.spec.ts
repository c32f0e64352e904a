/**
 * The compute budget the executor puts in front of its transactions, on the local chain (LiteSVM):
 * `auto` offers the percentile of what transactions writing the same accounts paid recently, capped;
 * a fixed price is that price; `off` none; the limit is what a simulation consumed plus the margin (one
 * simulation per shape, each time for a transaction creating a token account), or 200,000 units an instruction when the chain cannot simulate; and what the
 * chain charged is what the signed bytes say.
 */
import { createNoopSigner, type Address, type Instruction } from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import { getCreateAssociatedTokenIdempotentInstruction } from '@solana-program/token';
import { ata } from './transactions';
import { DEFAULT_COMPUTE_BUDGET, computeUnitLimit, type ComputeBudgetPolicy } from '../domain/priority-fee';
import { generateSigner } from './keys';
import { LiteSvmChain } from './litesvm';
import { RpcChain } from './rpc';
import { serveChainRpc } from './rpc-node';
import {
  ComputeBudget,
  budgetOf,
  computeBudgetInstructions,
  feeOf,
  messageOfWire,
  type BudgetChain,
} from './compute-budget';

let chain: LiteSvmChain;
beforeAll(async () => {
  chain = await LiteSvmChain.open({ seed: 'compute-budget', history: 100 });
  // The chain's own set-up (its mints, at no price) is no longer recent.
  await chain.passSlots(200);
});
afterAll(() => chain.close());

/** 1,000,000 lamports from the fee payer to `to`: a transaction writing `to`. */
const pay = (to: string): Instruction[] => [
  getTransferSolInstruction({
    source: createNoopSigner(chain.feePayer as Address),
    destination: to as Address,
    amount: 1_000_000n,
  }),
];

const policy = (over: Partial<ComputeBudgetPolicy>): ComputeBudgetPolicy => ({
  ...DEFAULT_COMPUTE_BUDGET,
  ...over,
});

it('auto offers the 75th percentile of what transactions writing the same account paid, at most the cap', async () => {
  const busy = generateSigner().address;
  for (const price of [4_000n, 1_000n, 3_000n, 2_000n]) {
    await chain.passSlots(1);
    await chain.submit(await chain.prepare([...computeBudgetInstructions(10_000, price), ...pay(busy)], []));
  }
  await chain.passSlots(1);
  const auto = new ComputeBudget(policy({ setting: { kind: 'auto' }, percentile: 75 }));
  const tx = await auto.prepare(chain, pay(busy), []);
  expect(budgetOf(messageOfWire(tx.wire)).microLamports).toBe(3_000n);
  await chain.submit(tx); // it lands at that price and the limit it asked

  const capped = new ComputeBudget(policy({ setting: { kind: 'auto' }, maxMicroLamports: 2_500n }));
  expect(budgetOf(messageOfWire((await capped.prepare(chain, pay(busy), [])).wire)).microLamports).toBe(
    2_500n,
  );
  // An account nobody wrote lately: the slots' lowest prices (1,000 to 4,000, and the 3,000 just paid
  // in a slot of its own), whose median is 3,000; the lowest at the 20th percentile.
  const quiet = new ComputeBudget(policy({ setting: { kind: 'auto' }, percentile: 50 }));
  const other = await quiet.prepare(chain, pay(generateSigner().address), []);
  expect(budgetOf(messageOfWire(other.wire)).microLamports).toBe(3_000n);
  const low = new ComputeBudget(policy({ setting: { kind: 'auto' }, percentile: 20 }));
  expect(
    budgetOf(messageOfWire((await low.prepare(chain, pay(generateSigner().address), [])).wire)).microLamports,
  ).toBe(1_000n);
});

it('a fixed price is that price; off sets a limit and no price', async () => {
  const fixed = new ComputeBudget(policy({ setting: { kind: 'fixed', microLamports: 25_000n } }));
  const priced = budgetOf(
    messageOfWire((await fixed.prepare(chain, pay(generateSigner().address), [])).wire),
  );
  expect(priced.microLamports).toBe(25_000n);
  const off = new ComputeBudget(policy({ setting: { kind: 'off' } }));
  const unpriced = budgetOf(
    messageOfWire((await off.prepare(chain, pay(generateSigner().address), [])).wire),
  );
  expect(unpriced).toEqual({ units: expect.any(Number), others: 1 });
});

it('asks the units a simulation consumed plus the margin, simulating each shape once; the chain charges what the bytes say', async () => {
  let simulations = 0;
  const counting: BudgetChain = {
    feePayer: chain.feePayer,
    prepare: (ixs, signers) => chain.prepare(ixs, signers),
    recentPrioritizationFees: (accounts) => chain.recentPrioritizationFees(accounts),
    unitsConsumed: (tx) => {
      simulations += 1;
      return chain.unitsConsumed(tx);
    },
  };
  const budget = new ComputeBudget(
    policy({ setting: { kind: 'fixed', microLamports: 100_000n }, marginPercent: 20 }),
  );
  const tx = await budget.prepare(counting, pay(generateSigner().address), []);
  const consumed = await chain.unitsConsumed(tx);
  expect(consumed).toBeGreaterThan(0n);
  const { units } = budgetOf(messageOfWire(tx.wire));
  expect(units).toBe(computeUnitLimit(consumed, 20, 1));
  expect(BigInt(units!)).toBeLessThan((consumed! * 121n) / 100n);

  const before = (await chain.readAccount(chain.feePayer))!.lamports;
  await chain.submit(tx);
  const fee = feeOf(messageOfWire(tx.wire));
  // 5,000 for its one signature and 100,000 micro-lamports a unit for the units it asked.
  expect(fee).toEqual({
    lamports: 5_000n + (100_000n * BigInt(units!) + 999_999n) / 1_000_000n,
    payer: chain.feePayer,
  });
  // What the chain took from the fee payer: the 1,000,000 lamports it sent, and that fee.
  expect(before - (await chain.readAccount(chain.feePayer))!.lamports).toBe(1_000_000n + fee.lamports);

  await budget.prepare(counting, pay(generateSigner().address), []);
  expect(simulations).toBe(1); // one per shape
});

it('falls back to 200,000 units an instruction when the chain cannot simulate, and simulates again next time', async () => {
  let simulations = 0;
  const blind: BudgetChain = {
    feePayer: chain.feePayer,
    prepare: (ixs, signers) => chain.prepare(ixs, signers),
    recentPrioritizationFees: (accounts) => chain.recentPrioritizationFees(accounts),
    unitsConsumed: async () => {
      simulations += 1;
      return undefined;
    },
  };
  const budget = new ComputeBudget(policy({ setting: { kind: 'off' } }));
  const ixs = [...pay(generateSigner().address), ...pay(generateSigner().address)];
  const tx = await budget.prepare(blind, ixs, []);
  expect(budgetOf(messageOfWire(tx.wire)).units).toBe(400_000);
  await chain.submit(tx); // enough to land
  await budget.prepare(blind, ixs, []);
  expect(simulations).toBe(2);
});

it("over JSON-RPC (the topology's executors, a cluster): the same price from the node and the same simulated limit", async () => {
  const node = await serveChainRpc(chain.node(), { port: 0 });
  const rpc = RpcChain.local(node.url, 'compute-budget');
  try {
    const busy = generateSigner().address;
    await chain.passSlots(1);
    await chain.submit(await chain.prepare([...computeBudgetInstructions(10_000, 7_000n), ...pay(busy)], []));
    const budget = policy({ setting: { kind: 'auto' }, percentile: 100 });
    const overRpc = budgetOf(
      messageOfWire((await new ComputeBudget(budget).prepare(rpc, pay(busy), [])).wire),
    );
    const inProcess = budgetOf(
      messageOfWire((await new ComputeBudget(budget).prepare(chain, pay(busy), [])).wire),
    );
    expect(overRpc).toEqual(inProcess);
    expect(overRpc.microLamports).toBe(7_000n);
    expect(overRpc.units).toBeLessThan(200_000);
  } finally {
    await rpc.close();
    await node.close();
  }
});

it('simulates each transaction with a token-account creation: one that creates lands after one that did not', async () => {
  const budget = new ComputeBudget(policy({ setting: { kind: 'off' } }));
  const mint = chain.tokens[0]!.mint;
  const create = async (owner: string) => [
    getCreateAssociatedTokenIdempotentInstruction({
      payer: createNoopSigner(chain.feePayer as Address),
      ata: await ata(owner, mint),
      owner: owner as Address,
      mint: mint as Address,
    }),
  ];
  const owner = generateSigner().address;
  await chain.submit(await chain.prepare(await create(owner), [])); // no budget: the account is there
  // The account there: its creation costs a few thousand units.
  const again = await budget.prepare(chain, await create(owner), []);
  await chain.submit(again);
  // Another owner's: the creation costs far more, and it lands all the same.
  const fresh = await budget.prepare(chain, await create(generateSigner().address), []);
  expect(budgetOf(messageOfWire(fresh.wire)).units!).toBeGreaterThan(
    budgetOf(messageOfWire(again.wire)).units!,
  );
  await chain.submit(fresh);
});
