/**
 * Settling an accepted intent with its outcome: the recipient's budget first (consumed when it
 * confirmed, released otherwise), then the agent (intent.confirmed or intent.failed, which releases
 * what the intent counted). Both steps are idempotent: settling again changes nothing.
 */
import type { IntentData } from '../domain/events';
import { decideSettleIntent, type IntentOutcome } from '../domain/intent';
import { ENTRY_TYPE, streams } from '../domain/events';
import { settleReservation } from './budgets';
import type { Context } from './context';

/** What settling needs of an intent (a held intent's approval names as much). */
export type Settled = Pick<
  IntentData,
  'intent_id' | 'agent_id' | 'group_id' | 'counterparty' | 'budget_entry_id'
>;
/** What settling needs of the context (the expiry scheduler has no chain). */
export type SettleContext = Pick<Context, 'now' | 'agents' | 'budgets' | 'groups'>;

/** Settles the intent; true when this call recorded its outcome. */
export async function settleIntent(
  ctx: SettleContext,
  intent: Settled,
  outcome: IntentOutcome,
): Promise<boolean> {
  const now = ctx.now();
  // An x402 payment that landed stays spent even when what follows it fails (domain/intent.ts).
  const spent = outcome.status === 'confirmed' || (await paymentLanded(ctx, intent));
  await settleBudget(ctx, intent, spent);
  return ctx.agents.handle(streams.agent(intent.agent_id), (state) => {
    const events = decideSettleIntent({ intent_id: intent.intent_id, outcome, now }, state);
    return { events, result: events.length > 0 };
  });
}

async function paymentLanded(ctx: SettleContext, intent: Settled): Promise<boolean> {
  const agent = await ctx.agents.load(streams.agent(intent.agent_id));
  return agent.state.intents.get(intent.intent_id)?.x402?.settled !== undefined;
}

/** The budget part alone: also for an intent that failed without its executor (an emergency stop). */
export async function settleBudget(ctx: SettleContext, intent: Settled, confirmed: boolean): Promise<void> {
  if (!intent.budget_entry_id) return;
  const group = await ctx.groups.load(streams.group(intent.group_id));
  const live = group.state.entries.get(intent.counterparty);
  const entry =
    live?.entryId === intent.budget_entry_id
      ? live
      : { entryId: intent.budget_entry_id, address: intent.counterparty, type: ENTRY_TYPE.recipient };
  await settleReservation(ctx, entry, intent.intent_id, confirmed, {
    agent_id: intent.agent_id,
    group_id: intent.group_id,
  });
}
