/**
 * A transfer's transaction as the chain holds it carries the compute budget the executor set (a
 * compute-unit limit sized from a simulation, the price PRIORITY_FEE says), the chain took the fee
 * that follows from them from the fee payer, and the intent's audit story says that fee and who
 * paid it. Read through the chain's JSON-RPC with `@solana/web3.js`, as anyone checking would.
 * Embedded, the executor runs with a fixed price; on the topology its executors run with the stack's
 * settings (PRIORITY_FEE=auto, which offers 0 on the local chain, where every transaction pays 0).
 * The operator's emergency sweep, sent by the API, carries the same budget.
 */
import { Connection, type VersionedTransactionResponse } from '@solana/web3.js';
import { DEFAULT_COMPUTE_BUDGET, streams } from '@tokenops/shared';
import { executorWiring } from '@tokenops/executor';
import { openBooks } from '@tokenops/testing/conservation';
import { key, startWorld, type World } from '@tokenops/testing/harness';

const COMPUTE_BUDGET = 'ComputeBudget111111111111111111111111111111';
const FIXED = 20_000n;

let world: World;
let books: Awaited<ReturnType<typeof openBooks>>;
let connection: Connection;
/** The price the executor sets: the fixed one embedded, auto's 0 on the topology. */
let price: bigint;
beforeAll(async () => {
  world = await startWorld({
    chainRpc: true,
    executor: {
      ...executorWiring(),
      computeBudget: { ...DEFAULT_COMPUTE_BUDGET, setting: { kind: 'fixed', microLamports: FIXED } },
    },
  });
  price = world.service.rpcUrl === undefined ? FIXED : 0n;
  books = await openBooks(world);
  connection = new Connection((world.service.chainRpcUrl ?? world.service.rpcUrl)!, 'confirmed');
});
// Tokens are conserved; the SOL fee is the fee payer's (testing/conservation.ts counts tokens).
afterEach(async () => {
  await books.expectBalanced();
});
afterAll(async () => world.close());

/** The compute budget a landed transaction set: SetComputeUnitLimit (2) and SetComputeUnitPrice (3), in front. */
function budgetOf(tx: VersionedTransactionResponse) {
  const keys = tx.transaction.message.staticAccountKeys.map((k) => k.toBase58());
  const ixs = tx.transaction.message.compiledInstructions;
  const data = ixs.map((ix) => Buffer.from(ix.data));
  return {
    programs: ixs.map((ix) => keys[ix.programIdIndex]),
    units: data[0]![0] === 2 ? data[0]!.readUInt32LE(1) : undefined,
    microLamports: data[1]![0] === 3 ? data[1]!.readBigUInt64LE(1) : undefined,
    instructions: ixs.length,
    signatures: tx.transaction.signatures.length,
    payer: keys[0],
  };
}

it("a transfer's transaction carries the compute budget; the audit story shows the fee the chain took and its payer", async () => {
  const agent = await world.agent();
  const payer = world.service.ctx.chain.feePayer;
  const sent = await world.client.call('POST', '/api/v1/transfer', {
    token: agent.key,
    body: { to: world.vendor, amount: 4, idempotency_key: key() },
  });
  expect(sent.status).toBe(200);
  const tx = await connection.getTransaction(sent.body.tx_sig as string, {
    maxSupportedTransactionVersion: 0,
  });
  expect(tx).not.toBeNull();
  const budget = budgetOf(tx!);
  expect(budget.programs.slice(0, 2)).toEqual([COMPUTE_BUDGET, COMPUTE_BUDGET]);
  expect(budget.programs.slice(2)).not.toContain(COMPUTE_BUDGET);
  expect(budget.microLamports).toBe(price);
  // Sized from a simulation: far below what the runtime allows without a limit (200,000 an instruction).
  expect(budget.units).toBeGreaterThan(1_000);
  expect(budget.units).toBeLessThan(200_000);
  expect(budget.payer).toBe(payer);

  // The fee the chain took: 5,000 a signature and price × limit, rounded up to a lamport.
  const fee = 5_000 * budget.signatures + Math.ceil((Number(price) * budget.units!) / 1_000_000);
  expect(tx!.meta!.fee).toBe(fee);

  const intentId = (
    (await world.service.ctx.store.readStream(streams.agent(agent.id))).find(
      (e) => e.type === 'intent.accepted',
    )!.data as { intent_id: string }
  ).intent_id;
  const story = await world.client.call<{
    sol_fee: { lamports: string; payer: string } | null;
    events: { type: string; data: Record<string, unknown> }[];
  }>('GET', `/api/v1/audit/intents/${intentId}`, { token: world.operator.token });
  expect(story.status).toBe(200);
  expect(story.body.sol_fee).toEqual({ lamports: String(fee), payer });
  expect(story.body.events.find((e) => e.type === 'intent.confirmed')!.data).toEqual(
    expect.objectContaining({ tx_sig: sent.body.tx_sig, sol_fee_lamports: String(fee), fee_payer: payer }),
  );
});

it('the fee payer pays exactly the fee the story records, for a transfer that creates no account', async () => {
  const agent = await world.agent(); // the vendor's and the treasury's token accounts exist already
  const sent = await world.client.call('POST', '/api/v1/transfer', {
    token: agent.key,
    body: { to: world.vendor, amount: 2, idempotency_key: key() },
  });
  expect(sent.status).toBe(200);
  const intentId = (
    (await world.service.ctx.store.readStream(streams.agent(agent.id))).find(
      (e) => e.type === 'intent.accepted',
    )!.data as { intent_id: string }
  ).intent_id;
  const story = await world.client.call<{ sol_fee: { lamports: string; payer: string } }>(
    'GET',
    `/api/v1/audit/intents/${intentId}`,
    { token: world.operator.token },
  );
  // The fee payer's lamports before and after this transaction, as the chain reports them (other
  // transactions of the same payer may land meanwhile on a shared chain).
  const tx = await connection.getTransaction(sent.body.tx_sig as string, {
    maxSupportedTransactionVersion: 0,
  });
  expect(tx!.transaction.message.staticAccountKeys[0]!.toBase58()).toBe(story.body.sol_fee.payer);
  expect(tx!.meta!.preBalances[0]! - tx!.meta!.postBalances[0]!).toBe(Number(story.body.sol_fee.lamports));
});

it('a blocked intent has no fee in its story', async () => {
  const agent = await world.agent({ per_tx_limit: 1 });
  const refused = await world.client.call('POST', '/api/v1/transfer', {
    token: agent.key,
    body: { to: world.vendor, amount: 5, idempotency_key: key() },
  });
  expect(refused.status).toBe(403);
  const intentId = (
    (await world.service.ctx.store.readStream(streams.agent(agent.id))).find(
      (e) => e.type === 'intent.blocked',
    )!.data as { intent_id: string }
  ).intent_id;
  const story = await world.client.call<{ sol_fee: unknown }>('GET', `/api/v1/audit/intents/${intentId}`, {
    token: world.operator.token,
  });
  expect(story.body.sol_fee).toBeNull();
});

it("an emergency withdrawal's sweep carries the same compute budget (the API sends it, not the executor)", async () => {
  const agent = await world.agent();
  const drained = await world.client.call<{ moved: { token: string; tx_sig: string }[] }>(
    'POST',
    `/api/v1/orchestrator/agents/${agent.id}/emergency-withdraw`,
    { token: world.operator.token, body: {} },
  );
  expect(drained.status).toBe(200);
  expect(drained.body.moved.length).toBeGreaterThan(0);
  for (const { tx_sig } of drained.body.moved) {
    const tx = await connection.getTransaction(tx_sig, { maxSupportedTransactionVersion: 0 });
    const budget = budgetOf(tx!);
    expect(budget.programs.slice(0, 2)).toEqual([COMPUTE_BUDGET, COMPUTE_BUDGET]);
    expect(budget.microLamports).toBe(price);
    expect(budget.units).toBeGreaterThan(1_000);
    expect(budget.units).toBeLessThan(200_000 * budget.instructions);
    expect(tx!.meta!.err).toBeNull();
  }
});
