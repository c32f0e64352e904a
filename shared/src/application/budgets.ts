/** Settling a spend's reservation on an allow-list entry's budget: consumed when it confirmed, released otherwise. */
import { decideSettleBudget } from '../domain/budget';
import { streams, type BudgetCause } from '../domain/events';
import type { AllowEntry } from '../domain/group';
import type { Context } from './context';

export async function settleReservation(
  ctx: Pick<Context, 'budgets' | 'now'>,
  entry: AllowEntry,
  intentId: string,
  confirmed: boolean,
  /** Whose spend it was: budget alerts reach that agent's webhooks and its group's. */
  cause?: BudgetCause,
  now = ctx.now(),
): Promise<void> {
  await ctx.budgets.handle(streams.budget(entry.entryId), (state) => ({
    events: decideSettleBudget(
      { intent_id: intentId, confirmed, now, ...(cause && { cause }) },
      entry,
      state,
    ),
    result: undefined,
  }));
}
