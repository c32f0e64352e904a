/**
 * The payment watcher on the real PostgreSQL log and a real chain node (LiteSVM served over JSON-RPC
 * on loopback, the RPC chain as its client), with agents onboarded as the API does: an outside
 * wallet's transfer and a mint are recorded once each, with their amount, payer and signature; the
 * agent's own transfer and swap, and a transfer between two agents of ours, are not; two watchers at
 * once, a restart, and the airdrop seen by the watcher too record nothing twice.
 */
import { Connection } from '@solana/web3.js';
import { randomBytes } from 'node:crypto';
import { LocalAggregator, ensureLocalPools } from '../aggregator/local';
import { generateSigner, type Signer } from '../chain/keys';
import { LiteSvmChain } from '../chain/litesvm';
import { localFixtures } from '../chain/local-fixtures';
import { RpcChain } from '../chain/rpc';
import { serveChainRpc, type ChainNode } from '../chain/rpc-node';
import { prepareTransfer, signTransaction, transferWithFeeInstructions } from '../chain/transactions';
import { PostgresEventStore } from '../event-store/postgres';
import { settingsFor } from '../process/settings';
import { serverSql } from '../sql/sql';
import { DATABASE_URL, dropSchema, uniqueName } from '@tokenops/testing/servers';
import { createContext, type Context } from './context';
import { KeyVault } from './credentials';
import { register } from './onboarding';
import { enactAs } from './proposals';
import { airdrop } from './airdrop';
import { createGroup } from './groups';
import { paymentEventId, startPaymentWatcher, type PaymentData, type PaymentWatcher } from './payments';
import type { PaymentSource } from '../chain/payments';
import { setTimeout as sleep } from 'node:timers/promises';

const SEED = 'watcher-test';
const fixtures = localFixtures(SEED);
const USDC = fixtures.mints[0]!;
const SOL = fixtures.mints[1]!;

const schema = uniqueName('payments');
const stores: PostgresEventStore[] = [];
const openStore = async () => {
  const store = await PostgresEventStore.open(
    await serverSql({ connectionString: DATABASE_URL, schema, max: 4 }),
  );
  stores.push(store);
  return store;
};
let backend: LiteSvmChain;
let node: ChainNode;
let chain: RpcChain;
let connection: Connection;
let ctx: Context;
let operator: Signer;
let groupId: string;
const vault = new KeyVault(randomBytes(32));
const contextOn = (store: PostgresEventStore) =>
  createContext({ store, chain, vault, settings: settingsFor({ kind: 'local', seed: SEED }) });

beforeAll(async () => {
  backend = await LiteSvmChain.open({ seed: SEED, history: 10_000 });
  await ensureLocalPools(backend, SEED);
  node = await serveChainRpc(backend.node(), { port: 0, slotMs: 50 });
  chain = RpcChain.local(node.url, SEED);
  connection = new Connection(node.url, 'confirmed');
  ctx = contextOn(await openStore());
  operator = generateSigner();
  groupId = (await createGroup(ctx, operator.address)).group_config_pda;
});

const running: PaymentWatcher[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((w) => w.stop()));
});

afterAll(async () => {
  await node.close();
  await backend.close();
  await Promise.all(stores.map((s) => s.close()));
  await dropSchema(schema);
});

/** Asks the chain as `chain` does, and notes whom it asked about; its notifications dropped when `deaf`. */
function askingChain({ deaf = false } = {}) {
  const asked: string[] = [];
  const source: PaymentSource = {
    incomingPayments: (owner, mints, query) => {
      asked.push(owner);
      return chain.incomingPayments(owner, mints, query);
    },
    watchAccount: (address, touched) => chain.watchAccount(address, (sig) => deaf || touched(sig)),
  };
  return { source, asked };
}

/** A watcher asking every 50 ms; `passes()` counts its passes over the agents. */
function watch(on: Context = ctx, source: PaymentSource = chain, sweepMs?: number) {
  let passes = 0;
  const errors: unknown[] = [];
  const watcher = startPaymentWatcher(on, source, {
    intervalMs: 50,
    ...(sweepMs !== undefined && { sweepMs }),
    onPass: (failures) => {
      passes++;
      errors.push(...failures);
    },
  });
  running.push(watcher);
  return {
    watcher,
    errors,
    /** Waits for `n` whole passes from now. */
    passes: async (n = 2) => {
      const until = passes + n + 1;
      while (passes < until) await sleep(10);
    },
  };
}

/** An invitation, proposed and signed by the operator: as its execution answers it. */
const invite = async () =>
  (await enactAs(ctx, operator, groupId, 'agent.invite', {})) as {
    agent_wallet_pda: string;
    invitation_code: string;
  };

/** An agent invited and registered, as through the API: its wallet is in custody. */
async function newAgent(): Promise<string> {
  const invited = await invite();
  await register(ctx, invited.invitation_code);
  return invited.agent_wallet_pda;
}

const recorded = async (agent: string) =>
  (await ctx.store.readStream(`payments-${agent}`)).map((e) => ({ id: e.id, ...(e.data as PaymentData) }));

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string): Promise<T> {
  for (let i = 0; i < 500; i++) {
    const value = await read();
    if (done(value)) return value;
    await sleep(20);
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** An outside wallet, with USDC and SOL for its fees, pays `to` and signs alone (it pays its own fee). */
async function stranger(): Promise<Signer> {
  const wallet = generateSigner();
  await chain.fund(wallet.address, 1_000_000_000n);
  await chain.mintTo(wallet.address, USDC.mint, 1_000_000_000n, `fund-${wallet.address}`);
  return wallet;
}
async function pay(from: Signer, to: string, amount: bigint, reference: string): Promise<string> {
  const instructions = await transferWithFeeInstructions(
    { from, to, mint: USDC.mint, decimals: 6, net: amount, fee: 0n, treasury: chain.treasury, reference },
    { feePayer: from.address, accountKnown: async () => false },
  );
  const { blockhash, lastValidBlockHeight } = await connection.getLatestBlockhash();
  const tx = signTransaction(instructions, from, [], {
    blockhash,
    lastValidBlockHeight: BigInt(lastValidBlockHeight),
  });
  await chain.submit(tx);
  return tx.signature;
}

describe('the payment watcher', () => {
  it('records an outside transfer once, with its amount, payer and signature', async () => {
    const agent = await newAgent();
    const payer = await stranger();
    const { passes } = watch();
    const sig = await pay(payer, agent, 12_500_000n, 'invoice 1');
    const [payment] = await until(
      () => recorded(agent),
      (r) => r.length > 0,
      'the payment',
    );
    expect(payment).toEqual({
      id: paymentEventId(sig, USDC.mint),
      agent_id: agent,
      mint: USDC.mint,
      amount: '12.5',
      from: payer.address,
      tx_signature: sig,
      at: expect.any(Number),
    });
    await passes();
    expect(await recorded(agent)).toHaveLength(1);
  });

  it('records a mint to the agent, from the mint authority', async () => {
    const agent = await newAgent();
    watch();
    const sig = await chain.mintTo(agent, SOL.mint, 1_500_000_000n, 'minted');
    const [payment] = await until(
      () => recorded(agent),
      (r) => r.length > 0,
      'the mint',
    );
    expect(payment).toEqual(
      expect.objectContaining({
        mint: SOL.mint,
        amount: '1.5',
        from: fixtures.authority.address,
        tx_signature: sig,
      }),
    );
  });

  it("does not record the agent's own transfer or swap, nor a transfer from another agent of ours", async () => {
    const agent = await newAgent();
    const other = await newAgent();
    const funding = await chain.mintTo(agent, USDC.mint, 50_000_000n, 'funding');
    const signer = await ctx.wallets.signer(agent);
    // Its own transfer, to the other agent (whose intent.confirmed credits it: not a payment either).
    await chain.submit(
      await prepareTransfer(chain, {
        from: signer,
        to: other,
        mint: USDC.mint,
        decimals: 6,
        net: 4_995_000n,
        fee: 5_000n,
        treasury: chain.treasury,
        reference: 'intent-transfer',
      }),
    );
    // Its own swap: its SOL rises.
    const prepared = await new LocalAggregator({ chain, seed: SEED }).swap(
      {
        agent,
        inputMint: USDC.mint,
        outputMint: SOL.mint,
        amount: 10_000_000n,
        minimumOut: 1n,
        reference: 'intent-swap',
      },
      chain,
    );
    await chain.submit(await chain.prepare(prepared.instructions, [signer, ...prepared.signers]));
    expect((await chain.tokenAccount(agent, SOL.mint)).amount).toBeGreaterThan(0n);
    expect((await chain.tokenAccount(other, USDC.mint)).amount).toBe(4_995_000n);
    // Then an outside payment to each, which the watcher records: it has looked at everything before.
    const payer = await stranger();
    const late = [
      await pay(payer, agent, 1_000_000n, 'late 1'),
      await pay(payer, other, 2_000_000n, 'late 2'),
    ];
    const { passes } = watch();
    await until(
      () => recorded(other),
      (r) => r.length > 0,
      'the payment to the other agent',
    );
    await until(
      () => recorded(agent),
      (r) => r.length > 1,
      'the payments to the agent',
    );
    await passes();
    expect((await recorded(agent)).map((p) => p.tx_signature)).toEqual([funding, late[0]]);
    expect((await recorded(other)).map((p) => p.tx_signature)).toEqual([late[1]]);
  });

  it('learns an agent registered after it started, and finds what was paid to it before', async () => {
    const { passes } = watch();
    await passes(1);
    const invited = await invite();
    const early = await chain.mintTo(invited.agent_wallet_pda, USDC.mint, 3_000_000n, 'before registration');
    await passes();
    expect(await recorded(invited.agent_wallet_pda)).toEqual([]); // not an agent yet
    await register(ctx, invited.invitation_code);
    const [payment] = await until(
      () => recorded(invited.agent_wallet_pda),
      (r) => r.length > 0,
      'the payment',
    );
    expect(payment?.tx_signature).toBe(early);
  });

  it('records each payment once with two watchers at once (two processes), and after a restart', async () => {
    const agents = [await newAgent(), await newAgent(), await newAgent()];
    const payer = await stranger();
    const a = watch(ctx);
    const b = watch(contextOn(await openStore()));
    const sigs: string[] = [];
    for (let round = 0; round < 3; round++)
      for (const [i, agent] of agents.entries())
        sigs.push(await pay(payer, agent, BigInt(1 + i + 10 * round), `r${round}`));
    for (const agent of agents)
      await until(
        () => recorded(agent),
        (r) => r.length === 3,
        'three payments',
      );
    await Promise.all([a.passes(), b.passes()]);
    await Promise.all(running.splice(0).map((w) => w.stop()));
    expect(a.errors).toEqual([]);
    expect(b.errors).toEqual([]);
    // A restart reads the recent window again.
    const restarted = watch(contextOn(await openStore()));
    await restarted.passes(3);
    const all = (await Promise.all(agents.map(recorded))).flat();
    expect(all.map((p) => p.tx_signature).sort()).toEqual([...sigs].sort());
    expect(new Set(all.map((p) => p.id)).size).toBe(9);
  });

  it('asks the chain only about accounts it was told were touched: an agent nobody pays costs nothing between sweeps', async () => {
    const idle = await newAgent();
    const paid = await newAgent();
    const { source, asked } = askingChain();
    const { passes } = watch(ctx, source, 60_000);
    await passes(3); // the sweep at start, and a first look at each agent
    asked.length = 0;
    await passes(5);
    expect(asked).toEqual([]);
    const sig = await pay(await stranger(), paid, 4_000_000n, 'told');
    const [payment] = await until(
      () => recorded(paid),
      (r) => r.length > 0,
      'the payment',
    );
    expect(payment?.tx_signature).toBe(sig);
    expect(asked).toContain(paid);
    expect(asked).not.toContain(idle);
  });

  it('finds a payment whose notification was lost at the next sweep', async () => {
    const agent = await newAgent();
    const { source, asked } = askingChain({ deaf: true });
    const { passes } = watch(ctx, source, 400);
    await passes(2);
    const sig = await pay(await stranger(), agent, 1_500_000n, 'unheard');
    const [payment] = await until(
      () => recorded(agent),
      (r) => r.length > 0,
      'the payment',
    );
    expect(payment?.tx_signature).toBe(sig);
    // Asked about at sweeps (every 400 ms) and at its first look, not at every 50 ms pass.
    expect(asked.filter((a) => a === agent).length).toBeLessThan(8);
  });

  it('records an airdrop it also sees on chain once: the airdrop and the watcher use the same id', async () => {
    const agent = await newAgent();
    const { passes } = watch();
    const drops = await Promise.all([
      airdrop(ctx, { to: agent, amount: '5' }),
      airdrop(ctx, { to: agent, amount: '0.25' }),
    ]);
    await passes();
    const [next] = [await airdrop(ctx, { to: agent, amount: '7' })];
    await passes();
    const payments = await recorded(agent);
    expect(payments.map((p) => p.tx_signature).sort()).toEqual(
      [...drops, next!].map((d) => d.tx_signature).sort(),
    );
    for (const p of payments) expect(p.id).toBe(paymentEventId(p.tx_signature, USDC.mint));
    // Whoever got there first: the airdrop says 'airdrop', the watcher the mint authority.
    for (const p of payments) expect(['airdrop', fixtures.authority.address]).toContain(p.from);
    expect(payments.map((p) => p.amount).sort()).toEqual(['0.25', '5', '7']);
  });
});
