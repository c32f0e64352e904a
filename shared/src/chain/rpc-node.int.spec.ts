/**
 * The local chain node as a Solana client sees it: `@solana/web3.js`'s Connection, as a wallet or an
 * x402 facilitator uses it, against the node serving LiteSVM on loopback.
 */
import {
  Connection,
  Keypair,
  LAMPORTS_PER_SOL,
  PublicKey,
  SystemProgram,
  TransactionInstruction,
  TransactionMessage,
  VersionedTransaction,
} from '@solana/web3.js';
import { LiteSvmChain } from './litesvm';
import { localFixtures } from './local-fixtures';
import { serveChainRpc, type ChainNode } from './rpc-node';

const seed = 'rpc-node-web3';
let chain: LiteSvmChain;
let node: ChainNode;
let connection: Connection;

beforeAll(async () => {
  chain = await LiteSvmChain.open({ seed });
  node = await serveChainRpc(chain.node(), { port: 0, slotMs: 50 });
  connection = new Connection(node.url, { commitment: 'confirmed', wsEndpoint: node.wsUrl });
});
afterAll(async () => {
  // web3.js closes its socket half a second after the last subscription ends.
  await new Promise((r) => setTimeout(r, 1_000));
  await node.close();
  await chain.close();
});

/** A payer funded through requestAirdrop, confirmed as web3.js confirms it. */
async function funded(lamports = LAMPORTS_PER_SOL): Promise<Keypair> {
  const payer = Keypair.generate();
  const signature = await connection.requestAirdrop(payer.publicKey, lamports);
  const latest = await connection.getLatestBlockhash();
  await connection.confirmTransaction({ signature, ...latest });
  return payer;
}

async function transfer(from: Keypair, to: PublicKey, lamports: number, blockhash?: string) {
  const message = new TransactionMessage({
    payerKey: from.publicKey,
    recentBlockhash: blockhash ?? (await connection.getLatestBlockhash()).blockhash,
    instructions: [SystemProgram.transfer({ fromPubkey: from.publicKey, toPubkey: to, lamports })],
  }).compileToV0Message();
  const tx = new VersionedTransaction(message);
  tx.sign([from]);
  return tx;
}

describe('requestAirdrop', () => {
  it('answers the real signature: confirmTransaction resolves, and the lamports are there', async () => {
    const to = Keypair.generate().publicKey;
    const signature = await connection.requestAirdrop(to, 2 * LAMPORTS_PER_SOL);
    expect(signature).not.toMatch(/^1+$/);
    const latest = await connection.getLatestBlockhash();
    const confirmed = await connection.confirmTransaction({ signature, ...latest });
    expect(confirmed.value.err).toBeNull();
    expect((await connection.getSignatureStatus(signature)).value).toMatchObject({
      err: null,
      confirmationStatus: 'finalized',
    });
    expect(await connection.getBalance(to)).toBe(2 * LAMPORTS_PER_SOL);
  });

  it('pays the same airdrop asked twice twice, as a faucet does (two transactions, two signatures)', async () => {
    const to = Keypair.generate().publicKey;
    const first = await connection.requestAirdrop(to, LAMPORTS_PER_SOL);
    const second = await connection.requestAirdrop(to, LAMPORTS_PER_SOL);
    expect(second).not.toBe(first);
    const statuses = await connection.getSignatureStatuses([first, second]);
    expect(statuses.value.map((s) => s?.err)).toEqual([null, null]);
    expect(await connection.getBalance(to)).toBe(2 * LAMPORTS_PER_SOL);
  });

  it('refuses an address that is not one, as a validator does', async () => {
    const answer = await fetch(node.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'requestAirdrop', params: ['nope', 1] }),
    }).then((r) => r.json() as Promise<{ error: { code: number } }>);
    expect(answer.error.code).toBe(-32602);
  });
});

describe('simulateTransaction', () => {
  it('runs a transfer and keeps nothing: err, logs, units, the accounts asked for', async () => {
    const payer = await funded();
    const to = Keypair.generate().publicKey;
    const tx = await transfer(payer, to, 1_000_000);
    const simulated = await connection.simulateTransaction(tx, {
      sigVerify: true,
      accounts: { encoding: 'base64', addresses: [to.toBase58()] },
    });
    expect(simulated.value.err).toBeNull();
    expect(simulated.value.logs).toEqual([
      'Program 11111111111111111111111111111111 invoke [1]',
      'Program 11111111111111111111111111111111 success',
    ]);
    expect(simulated.value.unitsConsumed).toBeGreaterThan(0);
    expect(simulated.value.returnData).toBeNull();
    expect(simulated.value.accounts).toHaveLength(1);
    expect(simulated.value.accounts![0]).toMatchObject({
      lamports: 1_000_000,
      owner: SystemProgram.programId.toBase58(),
    });
    // Nothing was kept: the recipient still has nothing, the same bytes still send once.
    expect(await connection.getBalance(to)).toBe(0);
    const sent = await connection.sendTransaction(tx);
    await connection.confirmTransaction({ signature: sent, ...(await connection.getLatestBlockhash()) });
    expect(await connection.getBalance(to)).toBe(1_000_000);
  });

  it("answers a failing transaction's error in Solana's form, with its logs", async () => {
    const payer = await funded(LAMPORTS_PER_SOL / 10);
    const tx = await transfer(payer, Keypair.generate().publicKey, LAMPORTS_PER_SOL);
    const simulated = await connection.simulateTransaction(tx);
    expect(simulated.value.err).toEqual({ InstructionError: [0, { Custom: 1 }] });
    expect(simulated.value.logs?.join('\n')).toContain('insufficient lamports');
  });

  it('checks signatures only when asked (sigVerify), and replaces a stale blockhash when asked', async () => {
    const payer = await funded();
    const stale = await transfer(
      payer,
      Keypair.generate().publicKey,
      1_000_000,
      Keypair.generate().publicKey.toBase58(),
    );
    expect((await connection.simulateTransaction(stale)).value.err).toBe('BlockhashNotFound');
    // A slot, with a new blockhash, passes every 50 ms here: the replacement is a blockhash valid now.
    const replaced = await connection.simulateTransaction(stale, { replaceRecentBlockhash: true });
    expect(replaced.value.err).toBeNull();
    // web3.js's type leaves the field out; the node answers it as a validator does.
    const { replacementBlockhash } = replaced.value as { replacementBlockhash?: { blockhash: string } };
    expect((await connection.isBlockhashValid(replacementBlockhash!.blockhash)).value).toBe(true);

    const unsigned = await transfer(payer, Keypair.generate().publicKey, 1_000_000);
    unsigned.signatures[0] = new Uint8Array(64).fill(7); // a signature that is not the payer's
    expect((await connection.simulateTransaction(unsigned)).value.err).toBeNull();
    expect((await connection.simulateTransaction(unsigned, { sigVerify: true })).value.err).toBe(
      'SignatureFailure',
    );
    // Both at once: refused, as a validator refuses them.
    await expect(
      connection.simulateTransaction(stale, { sigVerify: true, replaceRecentBlockhash: true }),
    ).rejects.toThrow(/sigVerify may not be used with replaceRecentBlockhash/);
  });

  it("answers a program's return data (the token program's GetAccountDataSize)", async () => {
    const payer = await funded();
    const mint = new PublicKey(localFixtures(seed).mints[0]!.mint);
    const message = new TransactionMessage({
      payerKey: payer.publicKey,
      recentBlockhash: (await connection.getLatestBlockhash()).blockhash,
      instructions: [
        new TransactionInstruction({
          programId: new PublicKey('TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA'),
          keys: [{ pubkey: mint, isSigner: false, isWritable: false }],
          data: Buffer.from([21]), // GetAccountDataSize: a token account's size, as return data
        }),
      ],
    }).compileToV0Message();
    const simulated = await connection.simulateTransaction(new VersionedTransaction(message));
    expect(simulated.value.err).toBeNull();
    const size = Buffer.alloc(8);
    size.writeBigUInt64LE(165n);
    expect(simulated.value.returnData).toEqual({
      programId: 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA',
      data: [size.toString('base64'), 'base64'],
    });
  });
});

describe('the cluster it is', () => {
  it('getGenesisHash: one hash for the chain, the same after a restart of its node', async () => {
    const hash = await connection.getGenesisHash();
    expect(hash).toMatch(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/);
    const again = await LiteSvmChain.open({ seed });
    const other = await serveChainRpc(again.node(), { port: 0 });
    expect(await new Connection(other.url).getGenesisHash()).toBe(hash);
    const elsewhere = await LiteSvmChain.open({ seed: 'another-chain' });
    const third = await serveChainRpc(elsewhere.node(), { port: 0 });
    expect(await new Connection(third.url).getGenesisHash()).not.toBe(hash);
    for (const n of [other, third]) await n.close();
    for (const c of [again, elsewhere]) await c.close();
  });

  it('getEpochInfo: the slot, the epoch and where in it, as a validator counts them', async () => {
    const info = await connection.getEpochInfo();
    const slot = await connection.getSlot();
    expect(info.absoluteSlot).toBeGreaterThanOrEqual(slot - 1);
    expect(info.absoluteSlot).toBeLessThanOrEqual(slot + 5);
    expect(info.slotIndex).toBeLessThan(info.slotsInEpoch);
    expect(info.transactionCount).toBeGreaterThan(0);
    // Past the warm-up (epochs 0 to 13, 524,256 slots), every epoch is 432,000 slots long.
    expect(info.slotsInEpoch).toBe(432_000);
    expect(info.absoluteSlot - info.slotIndex).toBe(524_256 + (info.epoch - 14) * 432_000);
  });
});

describe('large requests', () => {
  const rpc = (body: string) =>
    fetch(node.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });

  it("answers getMultipleAccounts over 25,000 addresses in one call (the tests' books of the shared topology)", async () => {
    const funder = await funded();
    const addresses = Array.from({ length: 25_000 }, () => Keypair.generate().publicKey.toBase58());
    addresses[12_345] = funder.publicKey.toBase58();
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'getMultipleAccounts',
      params: [addresses, { encoding: 'base64' }],
    });
    expect(body.length).toBeGreaterThan(1024 * 1024);
    const res = await rpc(body);
    expect(res.status).toBe(200);
    const { result } = (await res.json()) as { result: { value: ({ lamports: number } | null)[] } };
    expect(result.value).toHaveLength(25_000);
    expect(result.value.filter((v) => v !== null).map((v) => v!.lamports)).toEqual([LAMPORTS_PER_SOL]);
    expect(result.value[12_345]).not.toBeNull();
  });

  it('answers a body past its limit with 413 and a JSON-RPC error, not a reset connection', async () => {
    const res = await rpc(
      `{"jsonrpc":"2.0","id":1,"method":"getSlot","params":["${'x'.repeat(17 * 1024 * 1024)}"]}`,
    );
    expect(res.status).toBe(413);
    expect(await res.json()).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, message: `Request body over ${16 * 1024 * 1024} bytes` },
    });
    expect(await connection.getSlot()).toBeGreaterThan(0); // and it goes on answering
  });
});
