/**
 * The approved budget of one type-1 allow-list entry, shared by every agent of the group. A spend
 * reserves its value here before the agent accepts it; the outcome consumes or releases it. Reserved
 * and used together never exceed the approved amount. Pure.
 */
import Big from 'big.js';
import type { BudgetCause, BudgetEvent } from './events';
import type { AllowEntry } from './group';
import type { Fold } from './decider';

export interface BudgetState {
  /** Open reservations by intent id. */
  reserved: ReadonlyMap<string, Big>;
  used: Big;
  voided: boolean;
  thresholdReached: boolean;
  /** Intents whose reservation was consumed or released: a repeated outcome changes nothing. */
  settled: ReadonlySet<string>;
}

export const initialBudgetState = (): BudgetState => ({
  reserved: new Map(),
  used: new Big(0),
  voided: false,
  thresholdReached: false,
  settled: new Set(),
});

export function evolveBudget(state: BudgetState, event: BudgetEvent): BudgetState {
  switch (event.type) {
    case 'budget.reserved': {
      const reserved = new Map(state.reserved);
      reserved.set(event.data.intent_id, new Big(event.data.amount));
      return { ...state, reserved };
    }
    case 'budget.released':
    case 'budget.consumed': {
      const reserved = new Map(state.reserved);
      reserved.delete(event.data.intent_id);
      const settled = new Set(state.settled).add(event.data.intent_id);
      const used = event.type === 'budget.consumed' ? new Big(event.data.amount_used) : state.used;
      return { ...state, reserved, settled, used };
    }
    case 'policy.whitelist_amount_threshold':
      return { ...state, thresholdReached: true };
    case 'policy.whitelist_voided':
      return { ...state, voided: true };
  }
}

/** A type-1 allow-list entry's budget stream: what is reserved and spent of it. */
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
