/**
 * Settling what a spend reserved beside its agent: an allow-list entry's budget (consumed when it
 * confirmed, released otherwise), and a group's count against its own limits (released when it
 * failed; a confirmed spend stays counted until it leaves the windows).
 */
import { decideSettleBudget } from '../domain/budget';
import { streams, type BudgetCause } from '../domain/events';
import type { AllowEntry } from '../domain/group';
import { decideReleaseGroupCount } from '../domain/group-limits';
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

export async function releaseGroupCount(
  ctx: Pick<Context, 'groupSpends' | 'now'>,
  groupId: string,
  intentId: string,
  now = ctx.now(),
): Promise<void> {
  await ctx.groupSpends.handle(streams.groupSpends(groupId), (state) => ({
    events: decideReleaseGroupCount(groupId, intentId, state, now),
    result: undefined,
  }));
}
