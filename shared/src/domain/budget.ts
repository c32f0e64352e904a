/**
 * What the group's agents reserved and sent to one allow-list entry (its budget stream), shared by
 * every agent of the group: a type-1 entry's approved budget, and the window of an entry's own daily
 * limit (types 1 and 2, guard.md). A spend reserves its value here in the decision that accepts it;
 * the outcome consumes or releases it. Reserved and used together never exceed the approved amount;
 * what was reserved or consumed in any 24 hours never exceeds the daily limit. Pure.
 *
 * A type-2 entry has the stream only while it has a daily limit: an entry with neither a budget nor a
 * daily limit is never read or written by a spend, and a withdrawal (it spends nothing) never is.
 */
import Big from 'big.js';
import { Set as PersistentSet } from 'immutable';
import { ENTRY_TYPE, type Action, type BudgetCause, type BudgetEvent } from './events';
import type { AllowEntry } from './group';
import type { Fold } from './decider';
import { DAY_MS, HOUR_MS } from './time';
import { Windows } from './windows';

export interface BudgetState {
  /** Open reservations by intent id. */
  reserved: ReadonlyMap<string, Big>;
  used: Big;
  voided: boolean;
  thresholdReached: boolean;
  /**
   * Intents whose reservation was consumed or released: a repeated outcome changes nothing. Persistent
   * (each event shares the rest), so a stream of many spends folds in time linear in its events.
   */
  settled: PersistentSet<string>;
  /**
   * The reservations by the time they were made, for the daily limit: reserved (open, kept however
   * old), consumed (`confirmed`) or released (`failed`, counted in no window); settled ones leave once
   * 24 hours and a margin for clocks have passed.
   */
  window: Windows;
}

export const initialBudgetState = (): BudgetState => ({
  reserved: new Map(),
  used: new Big(0),
  voided: false,
  thresholdReached: false,
  settled: PersistentSet(),
  window: Windows.empty,
});

/** How long a settled reservation is kept past the daily window: covers clocks that disagree. */
const RETENTION_MS = DAY_MS + HOUR_MS;

/**
 * The window with the intent's reservation. Reserved again after a release (a decision made again for
 * the same intent, after its first acceptance never landed), it counts again, at its first time (an
 * intent keeps its place in the window).
 */
function reservedIn(window: Windows, intentId: string, value: Big, at: number): Windows {
  const before = window.get(intentId);
  if (before)
    return before.status === 'failed' ? window.with({ ...before, value, status: 'reserved' }) : window;
  return window
    .pruned(at, RETENTION_MS)
    .with({ intentId, action: 'transfer', at, value, spends: true, status: 'reserved' });
}

/** The window with the intent's reservation settled (`confirmed` or `failed`), if it holds it. */
function settledIn(window: Windows, intentId: string, status: 'confirmed' | 'failed'): Windows {
  const item = window.get(intentId);
  return item && item.status === 'reserved' ? window.with({ ...item, status }) : window;
}

export function evolveBudget(state: BudgetState, event: BudgetEvent): BudgetState {
  switch (event.type) {
    case 'budget.reserved': {
      const d = event.data;
      const reserved = new Map(state.reserved);
      const value = new Big(d.amount);
      reserved.set(d.intent_id, value);
      return { ...state, reserved, window: reservedIn(state.window, d.intent_id, value, d.at) };
    }
    case 'budget.released':
    case 'budget.consumed': {
      const reserved = new Map(state.reserved);
      reserved.delete(event.data.intent_id);
      const settled = state.settled.add(event.data.intent_id);
      const consumed = event.type === 'budget.consumed';
      const used = consumed ? new Big(event.data.amount_used) : state.used;
      const window = settledIn(state.window, event.data.intent_id, consumed ? 'confirmed' : 'failed');
      return { ...state, reserved, settled, used, window };
    }
    case 'policy.whitelist_amount_threshold':
      return { ...state, thresholdReached: true };
    case 'policy.whitelist_voided':
      return { ...state, voided: true };
  }
}

/** An allow-list entry's budget stream: what is reserved and spent of its budget, and its daily window. */
export const budgetFold: Fold<BudgetState, BudgetEvent> = {
  initialState: initialBudgetState,
  evolve: evolveBudget,
};

export const foldBudget = (events: readonly BudgetEvent[]): BudgetState =>
  events.reduce(evolveBudget, initialBudgetState());

/** What the entry still allows to `intentId` (its own reservation, if any, counts as available to it). */
export function budgetRemaining(entry: AllowEntry, state: BudgetState, intentId?: string): Big {
  if (!entry.approvedAmount || state.voided) return new Big(0);
  let taken = state.used;
  for (const [id, amount] of state.reserved) if (id !== intentId) taken = taken.plus(amount);
  return taken.gte(entry.approvedAmount) ? new Big(0) : entry.approvedAmount.minus(taken);
}

/**
 * Whether a spend of `action` to `entry` reserves on the entry's budget stream: always to a type-1
 * entry (its budget), and to any entry with a daily limit of its own unless it is a withdrawal.
 */
export const reservesOn = (entry: AllowEntry, action: Action): boolean =>
  entry.type === ENTRY_TYPE.recipient || (entry.dailyLimit !== undefined && action !== 'withdraw');

/** What the entry's window holds now: reserved and consumed in the last 24 hours (released ones not). */
export const entrySpentInDay = (state: BudgetState, now: number): Big =>
  state.window.spent(now, DAY_MS, 'counted');

/**
 * What the entry's daily limit leaves to `intentId` at `now` (its own reservation, if any, is not held
 * against it); undefined when the entry has no daily limit.
 */
export function entryDailyRemaining(
  entry: AllowEntry,
  state: BudgetState,
  now: number,
  intentId?: string,
): Big | undefined {
  const limit = entry.dailyLimit;
  if (limit === undefined) return undefined;
  let spent = entrySpentInDay(state, now);
  const own = intentId === undefined ? undefined : state.window.get(intentId);
  if (own && own.status !== 'failed' && now - own.at < DAY_MS) spent = spent.minus(own.value);
  return spent.gte(limit) ? new Big(0) : limit.minus(spent);
}

/** The share of the budget at which `policy.whitelist_amount_threshold` fires. */
export const THRESHOLD = new Big('0.8');

/** Settles a reservation: consumed when the intent confirmed, released when it failed. Idempotent. */
export function decideSettleBudget(
  cmd: { intent_id: string; confirmed: boolean; now: number; cause?: BudgetCause },
  entry: AllowEntry,
  state: BudgetState,
): BudgetEvent[] {
  const amount = state.reserved.get(cmd.intent_id);
  if (amount === undefined || state.settled.has(cmd.intent_id)) return [];
  const base = { entry_id: entry.entryId, intent_id: cmd.intent_id, at: cmd.now };
  if (!cmd.confirmed) return [{ type: 'budget.released', data: base }];
  const used = state.used.plus(amount);
  const events: BudgetEvent[] = [
    { type: 'budget.consumed', data: { ...base, amount: amount.toFixed(), amount_used: used.toFixed() } },
  ];
  // An entry removed or renewed since: its budget is settled, with no alert about a budget that is gone.
  const approved = entry.approvedAmount;
  if (!approved) return events;
  if (!state.thresholdReached && used.gte(approved.times(THRESHOLD))) {
    events.push({
      type: 'policy.whitelist_amount_threshold',
      data: {
        ...cmd.cause,
        entry_id: entry.entryId,
        recipient: entry.address,
        amount_used: used.toFixed(),
        approved_amount: approved.toFixed(),
        at: cmd.now,
      },
    });
  }
  if (used.gte(approved)) {
    events.push({
      type: 'policy.whitelist_voided',
      data: {
        ...cmd.cause,
        entry_id: entry.entryId,
        recipient: entry.address,
        final_amount_used: used.toFixed(),
        at: cmd.now,
      },
    });
  }
  return events;
}
