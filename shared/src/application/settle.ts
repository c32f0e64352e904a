/**
 * Settling an accepted intent with its outcome: the recipient's budget (consumed when it confirmed,
 * released otherwise) and the agent (intent.confirmed or intent.failed, which releases what the intent
 * counted). Where the store appends to several streams atomically (PostgreSQL, PGlite), both in one
 * append: one append fewer for a spend to a budgeted recipient, and no outcome without its budget
 * settled. Elsewhere (EventStoreDB) the budget first, then the agent. Settling again changes nothing.
 */
import type { IntentData } from '../domain/events';
import { decideSettleBudget } from '../domain/budget';
import type { AgentState } from '../domain/agent';
import type { AllowEntry, GroupState } from '../domain/group';
import { decideSettleIntent, type IntentOutcome } from '../domain/intent';
import { ENTRY_TYPE, streams } from '../domain/events';
import { settleReservation } from './budgets';
import type { Context } from './context';
import { appendTogether, withPatience } from './repository';

/** What settling needs of an intent (a held intent's approval names as much). */
export type Settled = Pick<
  IntentData,
  'intent_id' | 'agent_id' | 'group_id' | 'counterparty' | 'budget_entry_id'
>;
/** What settling needs of the context (the expiry scheduler has no chain). */
export type SettleContext = Pick<Context, 'now' | 'store' | 'agents' | 'budgets' | 'groups'>;

/** Settles the intent; true when this call recorded its outcome. */
export async function settleIntent(
  ctx: SettleContext,
  intent: Settled,
  outcome: IntentOutcome,
): Promise<boolean> {
  const now = ctx.now();
  const agentStream = streams.agent(intent.agent_id);
  const settleAgent = (state: AgentState) =>
    decideSettleIntent({ intent_id: intent.intent_id, outcome, now }, state);
  // An x402 payment that landed stays spent even when what follows it fails (domain/intent.ts).
  const paid = (agent: AgentState) => agent.intents.get(intent.intent_id)?.x402?.settled !== undefined;
  const budgetId = intent.budget_entry_id;
  if (budgetId && ctx.store.appendAtomically) {
    const budgetStream = streams.budget(budgetId);
    return ctx.agents.exclusive(agentStream, () =>
      withPatience(async () => {
        const [agent, group, budget] = await Promise.all([
          ctx.agents.load(agentStream),
          ctx.groups.load(streams.group(intent.group_id)),
          ctx.budgets.load(budgetStream),
        ]);
        const agentEvents = settleAgent(agent.state);
        const budgetEvents = decideSettleBudget(
          {
            intent_id: intent.intent_id,
            confirmed: outcome.status === 'confirmed' || paid(agent.state),
            now,
            cause: causeOf(intent),
          },
          reservedOn(group.state, intent, budgetId),
          budget.state,
        );
        await appendTogether(ctx.store, [
          ctx.budgets.stage(budgetStream, budget, budgetEvents),
          ctx.agents.stage(agentStream, agent, agentEvents),
        ]);
        return agentEvents.length > 0;
      }),
    );
  }
  if (budgetId)
    await settleBudget(
      ctx,
      intent,
      outcome.status === 'confirmed' || paid((await ctx.agents.load(agentStream)).state),
    );
  return ctx.agents.handle(agentStream, (state) => {
    const events = settleAgent(state);
    return { events, result: events.length > 0 };
  });
}

/** The budget part alone: also for an intent that failed without its executor (an emergency stop). */
export async function settleBudget(ctx: SettleContext, intent: Settled, confirmed: boolean): Promise<void> {
  const budgetId = intent.budget_entry_id;
  if (!budgetId) return;
  const group = await ctx.groups.load(streams.group(intent.group_id));
  await settleReservation(
    ctx,
    reservedOn(group.state, intent, budgetId),
    intent.intent_id,
    confirmed,
    causeOf(intent),
  );
}

/** The allow-list entry whose budget the intent reserved: the live one, or as it was if removed or renewed since. */
function reservedOn(group: GroupState, intent: Settled, budgetId: string): AllowEntry {
  const live = group.entries.get(intent.counterparty);
  return live?.entryId === budgetId
    ? live
    : { entryId: budgetId, address: intent.counterparty, type: ENTRY_TYPE.recipient };
}

/** Whose spend it was: budget alerts reach that agent's webhooks and its group's. */
const causeOf = (intent: Settled) => ({ agent_id: intent.agent_id, group_id: intent.group_id });
