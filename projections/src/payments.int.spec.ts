/**
 * Balances count every payment once, when the payment watcher runs (server topology): the agent views
 * built from the log equal what the chain holds, after an airdrop the watcher also sees, an outside
 * payment two watchers see, and a transfer between two agents of ours (credited to the recipient by
 * `intent.confirmed`, which the watcher leaves alone). On the real PostgreSQL log and a chain node
 * (LiteSVM over JSON-RPC on loopback).
 */
import { Connection } from '@solana/web3.js';
import { randomBytes } from 'node:crypto';
import {
  KeyVault,
  airdrop,
  amountText,
  createContext,
  fromBaseUnits,
  createGroup,
  generateSigner,
  enactAs,
  prepareTransfer,
  register,
  signTransaction,
  startPaymentWatcher,
  transferWithFeeInstructions,
  type Context,
  type IntentData,
  type PaymentWatcher,
} from '@tokenops/shared';
import {
  LiteSvmChain,
  MemoryReadModelStore,
  PostgresEventStore,
  RpcChain,
  serveChainRpc,
  serverSql,
  type ChainNode,
} from '@tokenops/shared/adapters';
import { settingsFor } from '@tokenops/shared/process';
import { DATABASE_URL, dropSchema, uniqueName } from '@tokenops/testing/servers';
import { keys } from './agent-views';
import { projectInto } from './rebuild';
import { setTimeout as sleep } from 'node:timers/promises';

const SEED = 'balances-test';
const schema = uniqueName('balances');

let backend: LiteSvmChain;
let node: ChainNode;
let chain: RpcChain;
const stores: PostgresEventStore[] = [];
const watchers: PaymentWatcher[] = [];
const contextOn = async () => {
  const store = await PostgresEventStore.open(
    await serverSql({ connectionString: DATABASE_URL, schema, max: 4 }),
  );
  stores.push(store);
  return createContext({
    store,
    chain,
    vault: new KeyVault(vaultKey),
    settings: settingsFor({ kind: 'local', seed: SEED }),
  });
};
const vaultKey = randomBytes(32);

beforeAll(async () => {
  backend = await LiteSvmChain.open({ seed: SEED, history: 10_000 });
  node = await serveChainRpc(backend.node(), { port: 0, slotMs: 50 });
  chain = RpcChain.local(node.url, SEED);
});

afterAll(async () => {
  await Promise.all(watchers.map((w) => w.stop()));
  await node.close();
  await backend.close();
  await Promise.all(stores.map((s) => s.close()));
  await dropSchema(schema);
});

async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (await check()) return;
    await sleep(20);
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** What the executor appends for a transfer it landed: the accepted intent, then its confirmation. */
async function transferIntent(
  ctx: Context,
  from: string,
  to: string,
  groupId: string,
  net: bigint,
  fee: bigint,
) {
  const usdc = chain.tokens[0]!;
  const tx = await prepareTransfer(chain, {
    from: await ctx.wallets.signer(from),
    to,
    mint: usdc.mint,
    decimals: 6,
    net,
    fee,
    treasury: chain.treasury,
    reference: 'intent-1',
  });
  await chain.submit(tx);
  const text = (units: bigint) => amountText(fromBaseUnits(units, 6));
  const intent: IntentData = {
    action: 'transfer',
    intent_id: 'intent-1',
    agent_id: from,
    group_id: groupId,
    amount: text(net + fee),
    mint: usdc.mint,
    value: text(net + fee),
    spends: true,
    counterparty: to,
    entry_id: 'entry-1',
    protocol_fee: text(fee),
    net_amount: text(net),
    at: Date.now(),
  };
  await ctx.store.append(
    `agent-${from}`,
    [
      { type: 'intent.accepted', data: intent },
      {
        type: 'intent.confirmed',
        data: { intent_id: 'intent-1', agent_id: from, tx_sig: tx.signature, at: Date.now() },
      },
    ],
    'any',
  );
}

/** An invitation as its proposal's execution answers it. */
type Invited = { agent_wallet_pda: string; invitation_code: string };

describe('balances with the payment watcher', () => {
  it('equal what the chain holds: each payment counted once', async () => {
    const ctx = await contextOn();
    const usdc = chain.tokens[0]!.mint;
    const operator = generateSigner();
    const groupId = (await createGroup(ctx, operator.address)).group_config_pda;
    const agents: string[] = [];
    for (let i = 0; i < 2; i++) {
      const invited = (await enactAs(ctx, operator, groupId, 'agent.invite', {})) as Invited;
      await register(ctx, invited.invitation_code);
      agents.push(invited.agent_wallet_pda);
    }
    const [a, b] = agents as [string, string];
    let passes = 0;
    for (const on of [ctx, await contextOn()])
      watchers.push(startPaymentWatcher(on, chain, { intervalMs: 50, onPass: () => passes++ }));

    await airdrop(ctx, { to: a, amount: '10' });
    await transferIntent(ctx, a, b, groupId, 999_000n, 1_000n);
    const stranger = generateSigner();
    await chain.fund(stranger.address, 1_000_000_000n);
    await chain.mintTo(stranger.address, usdc, 2_500_000n, 'stranger');
    const { blockhash, lastValidBlockHeight } = await new Connection(node.url).getLatestBlockhash();
    const outside = signTransaction(
      await transferWithFeeInstructions(
        {
          from: stranger,
          to: b,
          mint: usdc,
          decimals: 6,
          net: 2_500_000n,
          fee: 0n,
          treasury: chain.treasury,
          reference: 'outside',
        },
        { feePayer: stranger.address, accountKnown: async () => false },
      ),
      stranger,
      [],
      { blockhash, lastValidBlockHeight: BigInt(lastValidBlockHeight) },
    );
    await chain.submit(outside);

    await until(async () => (await ctx.store.readStream(`payments-${b}`)).length > 0, 'the outside payment');
    const seen = passes;
    await until(async () => passes >= seen + 6, 'more passes of both watchers');

    const views = new MemoryReadModelStore();
    await projectInto(ctx.store, views, chain.tokens);
    for (const [agent, expected] of [
      [a, 9_000_000n],
      [b, 3_499_000n],
    ] as const) {
      const onChain = (await chain.balances(agent)).get(usdc);
      expect(onChain).toBe(expected);
      expect((await views.get<Record<string, string>>(keys.balance(agent)))?.[usdc]).toBe(String(onChain));
    }
  });
});
