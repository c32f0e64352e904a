/** Settling a spend's reservation on an allow-list entry's budget: consumed when it confirmed, released otherwise. */
import { decideSettleBudget } from '../domain/budget';
import { streams } from '../domain/events';
import type { AllowEntry } from '../domain/group';
import type { Context } from './context';

export async function settleReservation(
  ctx: Context,
  entry: AllowEntry,
  intentId: string,
  confirmed: boolean,
  now = ctx.now(),
): Promise<void> {
  await ctx.budgets.handle(streams.budget(entry.entryId), (state) => ({
    events: decideSettleBudget({ intent_id: intentId, confirmed, now }, entry, state),
    result: undefined,
  }));
}
