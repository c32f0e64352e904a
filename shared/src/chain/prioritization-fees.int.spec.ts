/**
 * getRecentPrioritizationFees of the local chain node, asked by `@solana/web3.js` as a client of a
 * cluster asks it: it answers from what the chain executed (per slot, the lowest price paid; over
 * accounts, what a transaction writing them paid at least), only the last 150 slots; and the fee a
 * transaction with a price paid is what getTransaction and the payer's balance say.
 */
import {
  ComputeBudgetProgram,
  Connection,
  Keypair,
  LAMPORTS_PER_SOL,
  PublicKey,
  SystemProgram,
  TransactionMessage,
  VersionedTransaction,
} from '@solana/web3.js';
import { LiteSvmChain } from './litesvm';
import { serveChainRpc, type ChainNode } from './rpc-node';

let chain: LiteSvmChain;
let node: ChainNode;
let connection: Connection;

beforeAll(async () => {
  // Slots pass only when the test says (passSlots): each transaction's slot is known.
  chain = await LiteSvmChain.open({ seed: 'priority-fees', history: 100 });
  node = await serveChainRpc(chain.node(), { port: 0 });
  connection = new Connection(node.url, { commitment: 'confirmed' });
});
afterAll(async () => {
  await node.close();
  await chain.close();
});

async function funded(): Promise<Keypair> {
  const payer = Keypair.generate();
  await chain.fund(payer.publicKey.toBase58(), BigInt(LAMPORTS_PER_SOL));
  return payer;
}

/** A transfer of 1,000,000 lamports (a new account's rent) at `microLamports` per unit, limited to 10,000 units; sent, its signature. */
async function pay(from: Keypair, to: PublicKey, microLamports: number): Promise<string> {
  const message = new TransactionMessage({
    payerKey: from.publicKey,
    recentBlockhash: (await connection.getLatestBlockhash()).blockhash,
    instructions: [
      ComputeBudgetProgram.setComputeUnitLimit({ units: 10_000 }),
      ComputeBudgetProgram.setComputeUnitPrice({ microLamports }),
      SystemProgram.transfer({ fromPubkey: from.publicKey, toPubkey: to, lamports: 1_000_000 }),
    ],
  }).compileToLegacyMessage();
  const tx = new VersionedTransaction(message);
  tx.sign([from]);
  return connection.sendRawTransaction(tx.serialize());
}

/** The node's answer for `accounts`, from slot `since` on (the chain's own set-up ran before). */
const asked = async (accounts: PublicKey[], since = 0) =>
  (await connection.getRecentPrioritizationFees({ lockedWritableAccounts: accounts }))
    .filter((f) => f.slot >= since)
    .map((f) => [f.slot, f.prioritizationFee]);

it('answers per slot what the transactions that ran there paid, over the accounts asked', async () => {
  const [a, b] = [await funded(), await funded()];
  const [toA, toB, untouched] = [1, 2, 3].map(() => Keypair.generate().publicKey);
  const first = Number(await chain.passSlots(1));
  await pay(a, toA!, 100);
  await pay(b, toB!, 300);
  const second = Number(await chain.passSlots(1));
  await pay(a, toA!, 50);

  // The slot's lowest, unless a transaction writing the account paid more there.
  expect(await asked([toB!], first)).toEqual([
    [first, 300],
    [second, 50],
  ]);
  expect(await asked([toA!], first)).toEqual([
    [first, 100],
    [second, 50],
  ]);
  expect(await asked([untouched!], first)).toEqual([
    [first, 100],
    [second, 50],
  ]);
  expect(await asked([], first)).toEqual([
    [first, 100],
    [second, 50],
  ]);
  // Over several accounts: what a transaction writing all of them had to beat in each.
  expect(await asked([toA!, b.publicKey], first)).toEqual([
    [first, 300],
    [second, 50],
  ]);

  // 150 slots on, the first is no longer recent; the second still is.
  await chain.passSlots(first + 150 - second);
  expect(await asked([toB!])).toEqual([[second, 50]]);
  await chain.passSlots(1);
  expect(await asked([toB!])).toEqual([]);
  expect(await asked([])).toEqual([]);
});

it('refuses more than 128 accounts, as a cluster does', async () => {
  const many = Array.from({ length: 129 }, () => Keypair.generate().publicKey);
  await expect(connection.getRecentPrioritizationFees({ lockedWritableAccounts: many })).rejects.toThrow(
    /Too many inputs provided; max 128/,
  );
});

it('charges the payer the base fee and price × limit, as getTransaction reports', async () => {
  const payer = await funded();
  const before = await connection.getBalance(payer.publicKey);
  const signature = await pay(payer, Keypair.generate().publicKey, 250_000);
  // 5,000 a signature, plus 250,000 micro-lamports × 10,000 units = 2,500 lamports.
  const fee = 5_000 + 2_500;
  const tx = await connection.getTransaction(signature, { maxSupportedTransactionVersion: 0 });
  expect(tx?.meta?.fee).toBe(fee);
  expect(before - (await connection.getBalance(payer.publicKey))).toBe(fee + 1_000_000);
});
