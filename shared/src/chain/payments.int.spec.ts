/**
 * Incoming payments on the real Solana runtime: the chain node's getSignaturesForAddress and
 * getTransaction in Solana's documented shapes (read raw, and through @solana/web3.js, which checks
 * them), and the PaymentSource of LiteSVM and of the RPC chain over that node. An outside wallet's
 * transfer and a mint are payments; the agent's own transfer and swap, and a failed transfer, are not.
 * The history outlives a restart of the chain node.
 */
import { Connection, PublicKey } from '@solana/web3.js';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalAggregator, ensureLocalPools } from '../aggregator/local';
import { generateSigner, type Signer } from './keys';
import { LiteSvmChain } from './litesvm';
import type { PaymentSource } from './payments';
import { ChainFailure, type LocalChain } from './port';
import { RpcChain } from './rpc';
import { serveChainRpc, type ChainNode } from './rpc-node';
import { ata, prepareTransfer, signTransaction, transferWithFeeInstructions } from './transactions';
import { localFixtures } from './local-fixtures';
import { readMessage } from './message';

const SEED = 'payments-test';
const fixtures = localFixtures(SEED);
const USDC = fixtures.mints[0]!;
const SOL = fixtures.mints[1]!;
const MINTS = [USDC.mint, SOL.mint];

interface Served {
  backend: LiteSvmChain;
  node: ChainNode;
  client: RpcChain;
  connection: Connection;
  close(): Promise<void>;
}

async function serve(stateFile?: string): Promise<Served> {
  const backend = await LiteSvmChain.open({ seed: SEED, history: 1_000, ...(stateFile && { stateFile }) });
  const node = await serveChainRpc(backend.node(), { port: 0, slotMs: 50 });
  return {
    backend,
    node,
    client: RpcChain.local(node.url, SEED),
    connection: new Connection(node.url, 'confirmed'),
    close: async () => {
      await node.close();
      await backend.close();
    },
  };
}

async function rpc(url: string, method: string, params: unknown[]) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return (await res.json()) as { result?: unknown; error?: { code: number; message: string } };
}

/**
 * An outside wallet pays `to`, paying its own fee: it is the only signer. Funded first with tokens (a
 * mint) and SOL for the fee.
 */
async function outsidePayment(
  chain: LocalChain,
  blockhash: () => Promise<string>,
  stranger: Signer,
  to: string,
  mint: { mint: string; decimals: number },
  amount: bigint,
  reference: string,
): Promise<string> {
  const instructions = await transferWithFeeInstructions(
    {
      from: stranger,
      to,
      mint: mint.mint,
      decimals: mint.decimals,
      net: amount,
      fee: 0n,
      treasury: chain.treasury,
      reference,
    },
    { feePayer: stranger.address, accountKnown: async () => false },
  );
  const tx = signTransaction(instructions, stranger, [], {
    blockhash: await blockhash(),
    lastValidBlockHeight: 1_000_000_000n,
  });
  await chain.submit(tx);
  return tx.signature;
}

async function funded(chain: LocalChain, mint = USDC.mint, amount = 100_000_000n): Promise<Signer> {
  const wallet = generateSigner();
  await chain.fund(wallet.address, 1_000_000_000n);
  await chain.mintTo(wallet.address, mint, amount, `fund-${wallet.address}`);
  return wallet;
}

describe('the chain node answers getSignaturesForAddress and getTransaction as Solana documents them', () => {
  let s: Served;
  const blockhash = async () => (await s.connection.getLatestBlockhash()).blockhash;
  beforeAll(async () => {
    s = await serve();
  });
  afterAll(async () => {
    await s.close();
  });

  it('lists the signatures touching an account newest first, with limit, before and until', async () => {
    const agent = generateSigner();
    const stranger = await funded(s.client);
    const first = await s.client.mintTo(agent.address, USDC.mint, 1_000_000n, 'first');
    const second = await outsidePayment(
      s.client,
      blockhash,
      stranger,
      agent.address,
      USDC,
      2_000_000n,
      'second',
    );
    const third = await s.client.mintTo(agent.address, USDC.mint, 3_000_000n, 'third');
    const account = await ata(agent.address, USDC.mint);

    const all = await rpc(s.node.url, 'getSignaturesForAddress', [account]);
    const listed = all.result as Record<string, unknown>[];
    expect(listed.map((x) => x.signature)).toEqual([third, second, first]);
    expect(listed[0]).toEqual({
      signature: third,
      slot: expect.any(Number),
      err: null,
      memo: null,
      blockTime: expect.any(Number),
      confirmationStatus: 'finalized',
    });
    const page = async (config: object) =>
      (
        (await rpc(s.node.url, 'getSignaturesForAddress', [account, config])).result as {
          signature: string;
        }[]
      ).map((x) => x.signature);
    expect(await page({ limit: 1 })).toEqual([third]);
    expect(await page({ before: third, limit: 1 })).toEqual([second]);
    expect(await page({ until: first })).toEqual([third, second]);
    expect(await page({ before: third, until: first })).toEqual([second]);
    // @solana/web3.js checks the shape and reads it.
    const parsed = await s.connection.getSignaturesForAddress(new PublicKey(account), { limit: 2 });
    expect(parsed.map((x) => x.signature)).toEqual([third, second]);
  });

  it('answers a transaction with its keys, header and token balances before and after', async () => {
    const agent = generateSigner();
    const stranger = await funded(s.client, USDC.mint, 5_000_000n);
    await s.client.mintTo(agent.address, USDC.mint, 1_000_000n, 'before');
    const sig = await outsidePayment(s.client, blockhash, stranger, agent.address, USDC, 2_500_000n, 'pay');

    const raw = (
      await rpc(s.node.url, 'getTransaction', [sig, { encoding: 'json', maxSupportedTransactionVersion: 0 }])
    ).result as {
      slot: number;
      blockTime: number;
      version: string;
      transaction: {
        signatures: string[];
        message: { accountKeys: string[]; header: Record<string, number> };
      };
      meta: {
        err: unknown;
        preTokenBalances: {
          accountIndex: number;
          owner: string;
          mint: string;
          uiTokenAmount: Record<string, unknown>;
        }[];
        postTokenBalances: {
          accountIndex: number;
          owner: string;
          mint: string;
          uiTokenAmount: Record<string, unknown>;
        }[];
      };
    };
    expect(raw.version).toBe('legacy');
    expect(raw.transaction.signatures).toEqual([sig]);
    expect(raw.transaction.message.accountKeys[0]).toBe(stranger.address);
    expect(raw.transaction.message.header).toEqual({
      numRequiredSignatures: 1,
      numReadonlySignedAccounts: 0,
      numReadonlyUnsignedAccounts: expect.any(Number),
    });
    expect(raw.meta.err).toBeNull();
    const held = (list: typeof raw.meta.preTokenBalances, owner: string) =>
      list.find((b) => b.owner === owner && b.mint === USDC.mint)?.uiTokenAmount;
    expect(held(raw.meta.preTokenBalances, stranger.address)).toEqual({
      amount: '5000000',
      decimals: 6,
      uiAmount: null,
      uiAmountString: '5',
    });
    expect(held(raw.meta.postTokenBalances, stranger.address)?.amount).toBe('2500000');
    expect(held(raw.meta.preTokenBalances, agent.address)?.amount).toBe('1000000');
    expect(held(raw.meta.postTokenBalances, agent.address)).toEqual(
      expect.objectContaining({ amount: '3500000', uiAmountString: '3.5' }),
    );
    for (const b of raw.meta.postTokenBalances)
      expect(raw.transaction.message.accountKeys[b.accountIndex]).toBeDefined();

    // @solana/web3.js checks the shape and reads it.
    const parsed = await s.connection.getTransaction(sig, { maxSupportedTransactionVersion: 0 });
    expect(parsed?.transaction.message.staticAccountKeys[0]!.toBase58()).toBe(stranger.address);
    expect(parsed?.meta?.postTokenBalances?.length).toBe(raw.meta.postTokenBalances.length);
  });

  it('answers null for a signature it does not know, and refuses what it cannot answer', async () => {
    const unknown = '5'.repeat(87);
    expect((await rpc(s.node.url, 'getTransaction', [unknown, { encoding: 'json' }])).result).toBeNull();
    expect((await rpc(s.node.url, 'getTransaction', [unknown, { encoding: 'base64' }])).error?.code).toBe(
      -32602,
    );
    expect((await rpc(s.node.url, 'getSignaturesForAddress', [USDC.mint, { limit: 1001 }])).error).toEqual({
      code: -32602,
      message: 'Invalid limit; max 1000',
    });
    expect((await rpc(s.node.url, 'getSignaturesForAddress', ['not an address'])).error?.code).toBe(-32602);
  });

  it('records a transaction that failed, with its error', async () => {
    const poor = await funded(s.client, USDC.mint, 1_000n);
    const tx = await prepareTransfer(s.client, {
      from: poor,
      to: generateSigner().address,
      mint: USDC.mint,
      decimals: 6,
      net: 2_000n,
      fee: 0n,
      treasury: s.client.treasury,
      reference: 'too much',
    });
    await expect(s.client.submit(tx)).rejects.toBeInstanceOf(ChainFailure);
    const [listed] = (
      await rpc(s.node.url, 'getSignaturesForAddress', [await ata(poor.address, USDC.mint), { limit: 1 }])
    ).result as { signature: string; err: unknown }[];
    expect(listed).toEqual(
      expect.objectContaining({ signature: tx.signature, err: { InstructionError: [2, { Custom: 1 }] } }),
    );
  });

  it('says so when the chain keeps no history', async () => {
    const bare = await LiteSvmChain.open({ seed: SEED });
    const node = await serveChainRpc(bare.node(), { port: 0 });
    try {
      expect((await rpc(node.url, 'getSignaturesForAddress', [USDC.mint])).error?.code).toBe(-32011);
    } finally {
      await node.close();
      await bare.close();
    }
  });
});

/** What every PaymentSource answers, on a chain with local pools: LiteSVM itself, and RPC over the node. */
function paymentSourceSuite(
  name: string,
  open: () => Promise<{
    chain: LocalChain & PaymentSource;
    blockhash(): Promise<string>;
    close(): Promise<void>;
  }>,
) {
  describe(`incoming payments: ${name}`, () => {
    let chain: LocalChain & PaymentSource;
    let blockhash: () => Promise<string>;
    let close: () => Promise<void>;
    beforeAll(async () => {
      ({ chain, blockhash, close } = await open());
    });
    afterAll(async () => {
      await close();
    });

    it('finds an outside transfer once, with its amount, payer and signature; a cursor answers only what is new', async () => {
      const agent = generateSigner();
      const stranger = await funded(chain);
      const sig = await outsidePayment(chain, blockhash, stranger, agent.address, USDC, 12_345_678n, 'p1');
      const first = await chain.incomingPayments(agent.address, MINTS);
      expect(first.payments).toEqual([
        {
          signature: sig,
          slot: expect.any(BigInt),
          mint: USDC.mint,
          amount: 12_345_678n,
          amountText: '12.345678',
          from: stranger.address,
          signers: [stranger.address],
        },
      ]);
      expect((await chain.incomingPayments(agent.address, MINTS, { after: first.cursor })).payments).toEqual(
        [],
      );
      const next = await outsidePayment(chain, blockhash, stranger, agent.address, USDC, 1n, 'p2');
      const second = await chain.incomingPayments(agent.address, MINTS, { after: first.cursor });
      expect(second.payments.map((p) => [p.signature, p.amountText])).toEqual([[next, '0.000001']]);
      // Without a cursor, the window: both, oldest first.
      expect((await chain.incomingPayments(agent.address, MINTS)).payments.map((p) => p.signature)).toEqual([
        sig,
        next,
      ]);
      expect(
        (await chain.incomingPayments(agent.address, MINTS, { window: 1 })).payments.map((p) => p.signature),
      ).toEqual([next]);
      // A transaction the caller says is not a payment is left out (and not read).
      const asked: string[] = [];
      expect(
        (
          await chain.incomingPayments(agent.address, MINTS, { skip: (s) => (asked.push(s), s === next) })
        ).payments.map((p) => p.signature),
      ).toEqual([sig]);
      expect(asked).toEqual(expect.arrayContaining([sig, next]));
    });

    it('finds a mint, from the mint authority', async () => {
      const agent = generateSigner();
      const sig = await chain.mintTo(agent.address, SOL.mint, 2_500_000_000n, 'minted');
      expect((await chain.incomingPayments(agent.address, MINTS)).payments).toEqual([
        expect.objectContaining({
          signature: sig,
          mint: SOL.mint,
          amount: 2_500_000_000n,
          amountText: '2.5',
          from: fixtures.authority.address,
        }),
      ]);
    });

    it("leaves out the agent's own transfer and swap, and a failed transfer to it", async () => {
      const agent = await funded(chain, USDC.mint, 50_000_000n);
      const { cursor } = await chain.incomingPayments(agent.address, MINTS);
      // Its own transfer out (another agent of ours could be the recipient: its balance rises there).
      const out = await prepareTransfer(chain, {
        from: agent,
        to: generateSigner().address,
        mint: USDC.mint,
        decimals: 6,
        net: 1_000_000n,
        fee: 1_000n,
        treasury: chain.treasury,
        reference: 'own transfer',
      });
      await chain.submit(out);
      // Its own swap: USDC in, SOL out of the pool, so its SOL balance rises.
      const aggregator = new LocalAggregator({ chain, seed: SEED });
      const prepared = await aggregator.swap(
        {
          agent: agent.address,
          inputMint: USDC.mint,
          outputMint: SOL.mint,
          amount: 2_000_000n,
          minimumOut: 1n,
          reference: 'own swap',
        },
        chain,
      );
      await chain.submit(await chain.prepare(prepared.instructions, [agent, ...prepared.signers]));
      expect((await chain.tokenAccount(agent.address, SOL.mint)).amount).toBeGreaterThan(0n);
      // A stranger's transfer that fails.
      const poor = await funded(chain, USDC.mint, 10n);
      await expect(
        outsidePayment(chain, blockhash, poor, agent.address, USDC, 11n, 'fails'),
      ).rejects.toThrow();
      expect((await chain.incomingPayments(agent.address, MINTS, { after: cursor })).payments).toEqual([]);
      expect((await chain.incomingPayments(agent.address, MINTS)).payments.map((p) => p.from)).toEqual([
        fixtures.authority.address, // the funding mint, and nothing else
      ]);
    });
  });
}

paymentSourceSuite('LiteSVM', async () => {
  const chain = await LiteSvmChain.open({ seed: SEED, history: 1_000 });
  await ensureLocalPools(chain, SEED);
  // The blockhash the chain signs with now, read back from a transaction it prepares.
  const blockhash = async () =>
    readMessage(new Uint8Array((await chain.prepare([], [])).transaction.messageBytes)).recentBlockhash;
  return { chain, blockhash, close: () => chain.close() };
});

paymentSourceSuite('JSON-RPC (the chain node)', async () => {
  const s = await serve();
  await ensureLocalPools(s.backend, SEED);
  return {
    chain: s.client,
    blockhash: async () => (await s.connection.getLatestBlockhash()).blockhash,
    close: s.close,
  };
});

describe('the history across a chain node restart', () => {
  it('keeps the payments and the cursor: nothing is missed, nothing is answered twice', async () => {
    const stateFile = join(mkdtempSync(join(tmpdir(), 'chain-')), 'chain.bin');
    const agent = generateSigner();
    let s = await serve(stateFile);
    const before = await s.client.mintTo(agent.address, USDC.mint, 7_000_000n, 'before');
    const { cursor } = await s.client.incomingPayments(agent.address, MINTS);
    const missed = await s.client.mintTo(agent.address, USDC.mint, 8_000_000n, 'while nobody watched');
    await s.close();

    s = await serve(stateFile);
    try {
      const since = await s.client.incomingPayments(agent.address, MINTS, { after: cursor });
      expect(since.payments.map((p) => [p.signature, p.amountText])).toEqual([[missed, '8']]);
      const all = await s.client.incomingPayments(agent.address, MINTS);
      expect(all.payments.map((p) => p.signature)).toEqual([before, missed]);
    } finally {
      await s.close();
    }
  });
});

describe('a bounded history', () => {
  it('keeps the newest transactions only, in memory and in its file across restarts', async () => {
    const stateFile = join(mkdtempSync(join(tmpdir(), 'chain-')), 'chain.bin');
    const agent = generateSigner();
    const lines = () => readFileSync(`${stateFile}.history`, 'utf8').split('\n').filter(Boolean).length;
    let chain = await LiteSvmChain.open({ seed: SEED, stateFile, history: 3 });
    const sigs: string[] = [];
    for (let i = 0; i < 5; i++) sigs.push(await chain.mintTo(agent.address, USDC.mint, 1n, `m${i}`));
    const newest = async () =>
      (await chain.incomingPayments(agent.address, MINTS)).payments.map((p) => p.signature);
    expect(await newest()).toEqual(sigs.slice(2));
    await chain.close();
    chain = await LiteSvmChain.open({ seed: SEED, stateFile, history: 3 });
    expect(await newest()).toEqual(sigs.slice(2));
    for (let i = 5; i < 8; i++) sigs.push(await chain.mintTo(agent.address, USDC.mint, 1n, `m${i}`));
    await chain.close();
    // Rewritten with the kept ones whenever it would pass twice as many.
    expect(lines()).toBeLessThanOrEqual(6);
    chain = await LiteSvmChain.open({ seed: SEED, stateFile, history: 3 });
    expect(await newest()).toEqual(sigs.slice(5));
    await chain.close();
  });
});

describe('a history file cut short by a crash', () => {
  it('loses the cut transaction only, and goes on writing whole lines', async () => {
    const stateFile = join(mkdtempSync(join(tmpdir(), 'chain-')), 'chain.bin');
    const agent = generateSigner();
    let chain = await LiteSvmChain.open({ seed: SEED, stateFile, history: 100 });
    const kept = await chain.mintTo(agent.address, USDC.mint, 1n, 'kept');
    const cut = await chain.mintTo(agent.address, USDC.mint, 2n, 'cut');
    await chain.close();
    const file = `${stateFile}.history`;
    const text = readFileSync(file, 'utf8');
    writeFileSync(file, text.slice(0, text.length - 40)); // the last line, cut
    chain = await LiteSvmChain.open({ seed: SEED, stateFile, history: 100 });
    const after = await chain.mintTo(agent.address, USDC.mint, 3n, 'after');
    await chain.close();
    chain = await LiteSvmChain.open({ seed: SEED, stateFile, history: 100 });
    const found = (await chain.incomingPayments(agent.address, MINTS)).payments.map((p) => p.signature);
    expect(found).toEqual([kept, after]);
    expect(found).not.toContain(cut);
    await chain.close();
  });
});
