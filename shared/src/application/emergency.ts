/**
 * The operator's brake: an emergency withdrawal drains an agent to a destination and revokes it. To
 * the group's safe destination (the governance policy's; the default) any one admin does it at once;
 * anywhere else it widens who holds the funds, so it is a proposal the admins sign
 * (`agent.emergency_withdraw`), drained once it executes.
 *
 *   1. Stop: the agent is revoked (its key refused, nothing new accepted) and every accepted intent
 *      no executor has submitted yet fails, its budget reservation released; none of them can reach
 *      the chain afterwards (an executor records a submission only on an intent still reserved). An
 *      intent already submitted lands before the drain, or fails on chain for want of funds after it.
 *   2. Redeem: every venue position (receipt tokens) is withdrawn into the agent's wallet.
 *   3. Drain: every token the agent holds moves to the destination, in one transaction.
 *   4. Record: `agent.emergency_withdraw` with what moved; when the destination is another agent of
 *      the service, also `payment.received` in its payments stream for each token it got, which its
 *      balance (and its webhooks) follow. The payment watcher leaves out transactions the service's
 *      wallets sign, so nothing else would credit it; the event's id is the one the watcher would
 *      give it (payments.ts), so it is recorded once however often this runs.
 *
 * Safe to repeat: each step reads the chain again, so a drain cut short by an outage is finished by
 * the next call, and on a drained agent it moves nothing.
 */
import Big from 'big.js';
import { ata, ensureTokenAccount, referenceMemo, tokenTransfer } from '../chain/transactions';
import { ChainFailure, type Instruction } from '../chain/port';
import { decideEmergencyStop, decideEmergencyWithdrawn } from '../domain/agent';
import { streams, type AgentEmergencyWithdraw } from '../domain/events';
import { checkRecipient, tokenByMint } from '../domain/tokens';
import { ServiceError } from '../errors';
import { fromBaseUnits, amountText } from '../money';
import type { Context } from './context';
import { agentOfGroup, type GovernedAction } from './governed';
import { PaymentLog } from './payments';
import { stopAgent } from './freeze';

type Drained = AgentEmergencyWithdraw['data'];

/** How often the drain reads the balances again when a payment or a late transaction moved them meanwhile. */
const DRAIN_ATTEMPTS = 3;

export const EMERGENCY_ACTIONS = {
  /**
   * Drains an agent (`{agent, destination?}`): at once to the group's safe destination (its default),
   * a proposal anywhere else. Recorded first (nothing to append before the chain moves), then drained
   * (`afterwards`): what moved is the answer to whoever made or executed it.
   */
  'agent.emergency_withdraw': {
    async change(ctx, groupId, params) {
      const agentId = String(params.agent);
      const { state: group } = await ctx.groups.load(streams.group(groupId));
      const loaded = await agentOfGroup(ctx, groupId, agentId);
      const safe = group.governance.policy.safeDestination;
      const destination = typeof params.destination === 'string' ? params.destination : safe;
      checkRecipient(destination);
      if (destination === agentId)
        throw new ServiceError('recipient_invalid', 'The destination must be another wallet than the agent.');
      return {
        staged: ctx.agents.stage(streams.agent(agentId), loaded, []),
        result: { agent_wallet_pda: agentId, destination },
        widens: destination !== safe,
        afterwards: () => drain(ctx, agentId, destination),
      };
    },
  },
} satisfies Record<string, GovernedAction>;

/** Stops the agent, redeems its positions and moves every token it holds to `destination`. */
async function drain(ctx: Context, agentId: string, destination: string) {
  // 1. Stop (freeze.ts): revoked, what was not submitted failed, held spends rejected.
  const { failed } = await stopAgent(
    ctx,
    agentId,
    (state) => decideEmergencyStop({ now: ctx.now() }, state),
    'emergency withdrawal',
  );

  const signer = await ctx.wallets.signer(agentId);
  const reference = `emergency:${agentId}:${ctx.now()}`;

  // 2. Redeem venue positions.
  const redeemed: {
    lending_program: string;
    receipt_mint: string;
    receipt_amount: string;
    mint: string;
    amount: string;
    tx_sig: string;
  }[] = [];
  for (const venue of ctx.venues) {
    for (const mint of venue.mints) {
      const position = await venue.position(agentId, mint);
      if (position.receipt === 0n) continue;
      const plan = await venue.withdraw({
        agent: agentId,
        mint,
        receiptAmount: position.receipt,
        reference: `${reference}:redeem`,
      });
      const tx = await ctx.computeBudget.prepare(ctx.chain, plan.instructions, [signer, ...plan.signers]);
      await ctx.chain.submit(tx);
      redeemed.push({
        lending_program: venue.program,
        receipt_mint: plan.receiptMint,
        receipt_amount: text(ctx, plan.receiptMint, position.receipt),
        mint: plan.underlyingMint,
        amount: text(ctx, plan.underlyingMint, plan.underlyingAmount),
        tx_sig: tx.signature,
      });
    }
  }

  // 3. Drain every token to the destination.
  const moved: Drained['moved'] = [];
  for (let attempt = 1; ; attempt++) {
    const held = [...(await ctx.chain.balances(agentId))].filter(([, units]) => units > 0n);
    if (held.length === 0) break;
    const instructions: Instruction[] = [referenceMemo(`${reference}:drain`)];
    for (const [mint, units] of held) {
      const to = await ensureTokenAccount(ctx.chain, destination, mint);
      const token = tokenByMint(ctx.chain.tokens, mint)!;
      instructions.push(
        ...to.create,
        tokenTransfer(await ata(agentId, mint), to.account, agentId, mint, units, token.decimals),
      );
    }
    const tx = await ctx.computeBudget.prepare(ctx.chain, instructions, [signer]);
    try {
      await ctx.chain.submit(tx);
    } catch (err) {
      // The balances moved between the read and the drain (a late transaction): read them again.
      if (err instanceof ChainFailure && attempt < DRAIN_ATTEMPTS) continue;
      throw err;
    }
    for (const [mint, units] of held)
      moved.push({ mint, amount: text(ctx, mint, units), tx_sig: tx.signature });
    break;
  }

  // 4. Record what moved, and what another agent of ours received.
  if (moved.length > 0 && (await ctx.wallets.inCustody(destination))) {
    const payments = new PaymentLog(ctx.store);
    for (const m of moved)
      await payments.record({
        agent_id: destination,
        mint: m.mint,
        amount: m.amount,
        from: agentId,
        tx_signature: m.tx_sig,
        at: ctx.now(),
      });
  }
  await ctx.agents.handle(streams.agent(agentId), (state) => ({
    events: decideEmergencyWithdrawn({ destination, moved, redeemed, now: ctx.now() }, state),
    result: undefined,
  }));
  const symbol = (mint: string) => tokenByMint(ctx.chain.tokens, mint)?.symbol ?? mint;
  return {
    agent_wallet_pda: agentId,
    is_active: 'revoked',
    destination,
    failed_intents: failed,
    redeemed: redeemed.map((r) => ({
      ...r,
      token: symbol(r.mint),
      amount: new Big(r.amount),
      receipt_token: symbol(r.receipt_mint),
      receipt_amount: new Big(r.receipt_amount),
    })),
    moved: moved.map((m) => ({ ...m, token: symbol(m.mint), amount: new Big(m.amount) })),
  };
}

const text = (ctx: Context, mint: string, units: bigint): string =>
  amountText(fromBaseUnits(units, tokenByMint(ctx.chain.tokens, mint)?.decimals ?? 0));
