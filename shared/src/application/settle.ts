/**
 * Settling an accepted intent with its outcome: what it reserved on its entry's budget stream (a
 * type-1 entry's budget, an entry's daily window; consumed when it confirmed, released otherwise), the group's count against its own limits (released when it failed) and the
 * agent (intent.confirmed or intent.failed, which releases what the intent counted). Where the store
 * appends to several streams atomically (PostgreSQL, PGlite), all in one append: one append fewer for
 * a spend to a budgeted recipient, and no outcome without its reservations settled. Elsewhere
 * (EventStoreDB) the budget and the group's count first, then the agent. Settling again changes nothing.
 */
import type { IntentData } from '../domain/events';
import { decideSettleBudget } from '../domain/budget';
import type { AgentState } from '../domain/agent';
import type { AllowEntry, GroupState } from '../domain/group';
import { decideSettleIntent, type IntentOutcome } from '../domain/intent';
import { ENTRY_TYPE, streams } from '../domain/events';
import { decideReleaseGroupCount } from '../domain/group-limits';
import { releaseGroupCount, settleReservation } from './budgets';
import type { Context } from './context';
import { appendTogether, withPatience } from './repository';

/** What settling needs of an intent (a held intent's approval names as much). */
export type Settled = Pick<
  IntentData,
  'intent_id' | 'agent_id' | 'group_id' | 'counterparty' | 'budget_entry_id' | 'group_limited'
>;
/** What settling needs of the context (the expiry scheduler has no chain). */
export type SettleContext = Pick<Context, 'now' | 'store' | 'agents' | 'budgets' | 'groups' | 'groupSpends'>;

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
  const counted = intent.group_limited === true;
  if ((budgetId || counted) && ctx.store.appendAtomically) {
    const budgetStream = budgetId && streams.budget(budgetId);
    const groupStream = counted ? streams.groupSpends(intent.group_id) : undefined;
    return ctx.agents.exclusive(agentStream, () =>
      withPatience(async () => {
        const [agent, group, budget, groupSpends] = await Promise.all([
          ctx.agents.load(agentStream),
          ctx.groups.load(streams.group(intent.group_id)),
          budgetStream ? ctx.budgets.load(budgetStream) : undefined,
          groupStream ? ctx.groupSpends.load(groupStream) : undefined,
        ]);
        const agentEvents = settleAgent(agent.state);
        const confirmed = outcome.status === 'confirmed' || paid(agent.state);
        const budgetEvents =
          budget &&
          decideSettleBudget(
            { intent_id: intent.intent_id, confirmed, now, cause: causeOf(intent) },
            reservedOn(group.state, intent, budgetId!),
            budget.state,
          );
        const groupEvents =
          groupSpends && !confirmed
            ? decideReleaseGroupCount(intent.group_id, intent.intent_id, groupSpends.state, now)
            : [];
        await appendTogether(ctx.store, [
          ...(budget ? [ctx.budgets.stage(budgetStream!, budget, budgetEvents!)] : []),
          ...(groupEvents.length > 0 ? [ctx.groupSpends.stage(groupStream!, groupSpends!, groupEvents)] : []),
          ctx.agents.stage(agentStream, agent, agentEvents),
        ]);
        return agentEvents.length > 0;
      }),
    );
  }
  if (budgetId || counted)
    await settleReservations(
      ctx,
      intent,
      outcome.status === 'confirmed' || paid((await ctx.agents.load(agentStream)).state),
    );
  return ctx.agents.handle(agentStream, (state) => {
    const events = settleAgent(state);
    return { events, result: events.length > 0 };
  });
}

/**
 * The reservations beside the agent alone (the budget's, the group's count): also for an intent that
 * failed without its executor (a freeze, an emergency stop).
 */
export async function settleReservations(
  ctx: SettleContext,
  intent: Settled,
  confirmed: boolean,
): Promise<void> {
  const budgetId = intent.budget_entry_id;
  if (budgetId) {
    const group = await ctx.groups.load(streams.group(intent.group_id));
    await settleReservation(
      ctx,
      reservedOn(group.state, intent, budgetId),
      intent.intent_id,
      confirmed,
      causeOf(intent),
    );
  }
  if (intent.group_limited && !confirmed) await releaseGroupCount(ctx, intent.group_id, intent.intent_id);
}

/**
 * The allow-list entry whose budget stream the intent reserved on: the live one, or, if removed or
 * renewed since, one with no budget left to alert about (settling it only consumes or releases).
 */
function reservedOn(group: GroupState, intent: Settled, budgetId: string): AllowEntry {
  const live = group.entries.get(intent.counterparty);
  return live?.entryId === budgetId
    ? live
    : { entryId: budgetId, address: intent.counterparty, type: ENTRY_TYPE.recipient };
}

/** Whose spend it was: budget alerts reach that agent's webhooks and its group's. */
const causeOf = (intent: Settled) => ({ agent_id: intent.agent_id, group_id: intent.group_id });
