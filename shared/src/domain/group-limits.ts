/**
 * The group's own limits, over every agent of the group (design.md "The guard", docs/guard.md): a
 * rolling 24-hour value limit and a rolling 60-minute operation cap, in the base token, on top of each
 * agent's own. They count what an agent's limits count: the value of every spend (not a withdrawal's)
 * toward the daily limit, every operation toward the cap.
 *
 * What the group's agents have in those windows is a stream of its own (`group-spends-<group>`): the
 * decision of a spend of a group with limits counts it there in the same append as the acceptance
 * (or, on a store without atomic appends, first), at the revision it read, so parallel spends by many
 * agents on several instances never pass a group limit. A group without limits never reads or writes
 * it: its spends touch no stream the group shares. An intent that fails (or is never accepted) is
 * released from it; a confirmed one stays counted until it leaves the window, as in an agent's.
 *
 * Pure: no I/O, no clock.
 */
import Big from 'big.js';
import { amountText, parseAmount, type Amount } from '../money';
import { validationError } from '../errors';
import type { Action, GroupLimitsSet, GroupSpendsEvent } from './events';
import type { Fold } from './decider';
import { DAY_MS, HOUR_MS } from './time';
import { Windows } from './windows';

/** The group's limits; a limit absent is none. */
export interface GroupLimits {
  daily_limit?: Amount;
  hourly_tx_cap?: number;
}

/** As the API answers them: null where there is none. */
export interface GroupLimitsView {
  daily_limit: string | null;
  hourly_tx_cap: number | null;
}

export const hasGroupLimits = (limits: GroupLimits): boolean =>
  limits.daily_limit !== undefined || limits.hourly_tx_cap !== undefined;

export const groupLimitsView = (limits: GroupLimits): GroupLimitsView => ({
  daily_limit: limits.daily_limit === undefined ? null : amountText(limits.daily_limit),
  hourly_tx_cap: limits.hourly_tx_cap ?? null,
});

export const groupLimitsFromEvent = (d: GroupLimitsSet['data']): GroupLimits => ({
  ...(d.daily_limit !== null && { daily_limit: new Big(d.daily_limit) }),
  ...(d.hourly_tx_cap !== null && { hourly_tx_cap: d.hourly_tx_cap }),
});

/** Operator input: a field absent keeps the limit, null lifts it, a value sets it. */
export interface GroupLimitsInput {
  daily_limit?: unknown;
  hourly_tx_cap?: unknown;
}

/** The limits `input` makes of `base`; a ServiceError (validation_error) names a bad field. */
export function mergeGroupLimits(base: GroupLimits, input: GroupLimitsInput): GroupLimits {
  const cap = input.hourly_tx_cap;
  if (cap !== undefined && cap !== null && !(Number.isSafeInteger(cap) && (cap as number) >= 0))
    throw validationError([{ path: '/hourly_tx_cap', issue: 'must be a non-negative integer or null' }]);
  const daily =
    input.daily_limit === undefined
      ? base.daily_limit
      : input.daily_limit === null
        ? undefined
        : parseAmount(input.daily_limit, 'daily_limit');
  const hourly = cap === undefined ? base.hourly_tx_cap : cap === null ? undefined : (cap as number);
  return {
    ...(daily !== undefined && { daily_limit: daily }),
    ...(hourly !== undefined && { hourly_tx_cap: hourly }),
  };
}

/** Whether `next` lets the fleet spend more than `old`: a limit lifted or raised (a proposal). */
export function groupLimitsWiden(old: GroupLimits, next: GroupLimits): boolean {
  const daily =
    old.daily_limit !== undefined && (next.daily_limit === undefined || next.daily_limit.gt(old.daily_limit));
  const hourly =
    old.hourly_tx_cap !== undefined &&
    (next.hourly_tx_cap === undefined || next.hourly_tx_cap > old.hourly_tx_cap);
  return daily || hourly;
}

const same = (a: GroupLimits, b: GroupLimits): boolean =>
  (a.daily_limit === undefined ? b.daily_limit === undefined : b.daily_limit?.eq(a.daily_limit) === true) &&
  a.hourly_tx_cap === b.hourly_tx_cap;

/** Sets the group's limits (`state`: as they stand); none when nothing would change. */
export function decideGroupLimits(
  cmd: GroupLimitsInput & { group_id: string; now: number },
  state: GroupLimits,
): GroupLimitsSet[] {
  if (cmd.daily_limit === undefined && cmd.hourly_tx_cap === undefined)
    throw validationError([{ path: '', issue: 'must name daily_limit or hourly_tx_cap (null lifts one)' }]);
  const next = mergeGroupLimits(state, cmd);
  if (same(state, next)) return [];
  const view = groupLimitsView(next);
  return [{ type: 'group.limits_set', data: { group_id: cmd.group_id, ...view, at: cmd.now } }];
}

// ---- the group's spends ----

export interface GroupSpendsState {
  /**
   * The intents counted, as an agent's windows hold them. None is open here (an intent counts from
   * its acceptance until released), so each is kept as `confirmed` and leaves with the retention.
   */
  intents: Windows;
}

/** How long a counted intent is kept past the daily window: covers clocks that disagree. */
const RETENTION_MS = DAY_MS + HOUR_MS;

export const initialGroupSpends = (): GroupSpendsState => ({ intents: Windows.empty });

export function evolveGroupSpends(state: GroupSpendsState, event: GroupSpendsEvent): GroupSpendsState {
  switch (event.type) {
    case 'group.spend_counted': {
      const d = event.data;
      if (state.intents.has(d.intent_id)) return state;
      const action: Action = d.spends ? 'transfer' : 'withdraw';
      return {
        intents: state.intents.pruned(d.at, RETENTION_MS).with({
          intentId: d.intent_id,
          action,
          at: d.at,
          value: new Big(d.value),
          spends: d.spends,
          status: 'confirmed',
        }),
      };
    }
    case 'group.spend_released': {
      const item = state.intents.get(event.data.intent_id);
      if (!item || item.status === 'failed') return state;
      return { intents: state.intents.with({ ...item, status: 'failed' }) };
    }
  }
}

/** A group's spends stream (`group-spends-<group>`). */
export const groupSpendsFold: Fold<GroupSpendsState, GroupSpendsEvent> = {
  initialState: initialGroupSpends,
  evolve: evolveGroupSpends,
};

/** What the group's limits leave before `intentId` (its own count, if any, is not held against it). */
export interface GroupRoom {
  /** Absent: no daily limit. */
  daily_remaining?: Big;
  /** Absent: no cap. */
  hourly_tx_remaining?: number;
  /** Whether `intentId` is counted already (a decision made again after a partial append). */
  own: boolean;
}

/**
 * What the room reads of the group's spends: a GroupSpendsState, or the policy preview's own count of
 * what the group's agents spent (fleet-counts.ts), which answers the same.
 */
export interface GroupCounts {
  intents: Pick<Windows, 'get' | 'spent' | 'ops'>;
}

export function groupRoom(limits: GroupLimits, state: GroupCounts, now: number, intentId: string): GroupRoom {
  const item = state.intents.get(intentId);
  const own = item !== undefined && item.status !== 'failed';
  const room: GroupRoom = { own };
  if (limits.daily_limit !== undefined) {
    let spent = state.intents.spent(now, DAY_MS, 'counted');
    if (own && item.spends && now - item.at < DAY_MS) spent = spent.minus(item.value);
    room.daily_remaining = spent.gte(limits.daily_limit) ? new Big(0) : limits.daily_limit.minus(spent);
  }
  if (limits.hourly_tx_cap !== undefined) {
    let ops = state.intents.ops(now, HOUR_MS, 'counted');
    if (own && now - item.at < HOUR_MS) ops -= 1;
    room.hourly_tx_remaining = Math.max(0, limits.hourly_tx_cap - ops);
  }
  return room;
}

/** The release of a failed intent from its group's count: none when it is not counted (or released). */
export function decideReleaseGroupCount(
  groupId: string,
  intentId: string,
  state: GroupSpendsState,
  now: number,
): GroupSpendsEvent[] {
  const item = state.intents.get(intentId);
  return item && item.status !== 'failed'
    ? [{ type: 'group.spend_released', data: { group_id: groupId, intent_id: intentId, at: now } }]
    : [];
}
