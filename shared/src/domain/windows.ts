/**
 * The intents an agent has in its rolling windows, and what they add up to (design.md: limits).
 *
 * Persistent: every change returns a new value that shares what it did not touch, so folding a long
 * log costs, per event, what the event touches (the intent, and the hour it was accepted in), and a
 * window's sum costs its hours, not its intents: the hours wholly inside the window answer with their
 * tallies, and the hour the window starts in with running tallies of its intents in time order. The
 * answers are exactly those of summing the intents one by one (windows.unit.spec.ts holds the two
 * equal on generated histories).
 */
import Big from 'big.js';
import { Map as PersistentMap } from 'immutable';
import type { Action, ResourceReply } from './events';
import { HOUR_MS } from './time';

/** An accepted intent as the windows see it. Failed intents stay (not counted) so outcomes are idempotent. */
export interface WindowItem {
  intentId: string;
  action: Action;
  at: number;
  value: Big;
  spends: boolean;
  status: 'reserved' | 'confirmed' | 'failed';
  /** Held for approval: executed only once approved; a refusal of its approval fails it. */
  held?: boolean;
  /** What the executor signed for it, once recorded. */
  submission?: {
    signature: string;
    wire: string;
    lastValidBlockHeight: string;
    receives?: { mint: string; amount: string };
  };
  /** An x402 payment: the signed payment on record (before it was sent), and once it landed, its settlement. */
  x402?: {
    header: string;
    signature: string;
    lastValidBlockHeight: string;
    settled?: { tx_sig: string; resource?: ResourceReply };
    /** Refused by the resource without a settlement: held until the payment can no longer land. */
    refused?: { refusal: string; resource?: ResourceReply };
  };
}

/** What some intents add up to: the value of those that spend, and how many operations. */
export interface Tally {
  spent: Big;
  ops: number;
}

/** The intents accepted in one clock hour, with the tallies of those that count. */
interface Hour {
  /** The hour's number since the epoch (`at` / 1 h, rounded down). */
  key: number;
  items: readonly WindowItem[];
  /** Reserved or confirmed (a failed intent counts in no window). */
  counted: Tally;
  confirmed: Tally;
}

const hourOf = (at: number): number => Math.floor(at / HOUR_MS);
const ZERO: Tally = { spent: new Big(0), ops: 0 };
const NOTHING = { counted: ZERO, confirmed: ZERO };

/** A window's statuses: every counted intent (reserved or confirmed), or only the confirmed ones. */
export type Counted = 'counted' | 'confirmed';

const countsIn = (item: WindowItem, which: Counted): boolean =>
  which === 'counted' ? item.status !== 'failed' : item.status === 'confirmed';

/** `tally` with `ops` operations worth `spent` put in (ops > 0) or taken out (ops < 0). */
const plus = (tally: Tally, spent: Big | undefined, ops: number): Tally =>
  ops === 0
    ? tally
    : {
        spent:
          spent === undefined ? tally.spent : ops > 0 ? tally.spent.plus(spent) : tally.spent.minus(spent),
        ops: tally.ops + ops,
      };

/** `tally` with `item` put in (sign 1) or taken out (-1), where it counts as `which`. */
const withItem = (tally: Tally, which: Counted, item: WindowItem | undefined, sign: 1 | -1): Tally =>
  item && countsIn(item, which) ? plus(tally, item.spends ? item.value : undefined, sign) : tally;

/** `tally` with `before` taken out and `after` put in, where each counts as `which`. */
function moved(tally: Tally, which: Counted, before?: WindowItem, after?: WindowItem): Tally {
  // An intent whose settlement changes nothing here (reserved to confirmed, for every counted one).
  if (before && after && countsIn(before, which) === countsIn(after, which)) return tally;
  return withItem(withItem(tally, which, before, -1), which, after, 1);
}

/** Both tallies with `before` taken out and `after` put in. */
const shifted = (
  t: { counted: Tally; confirmed: Tally },
  before: WindowItem | undefined,
  after: WindowItem | undefined,
) => ({
  counted: moved(t.counted, 'counted', before, after),
  confirmed: moved(t.confirmed, 'confirmed', before, after),
});

const tallied = (key: number, items: readonly WindowItem[]): Hour => ({
  key,
  items,
  ...items.reduce((t, item) => shifted(t, undefined, item), NOTHING),
});

/** An hour's intents in time order, with what the first i of them add up to (index i). */
class Running {
  private readonly ats: number[];
  private readonly tallies: Record<Counted, Tally[]>;

  constructor(hour: Hour) {
    const items = [...hour.items].sort((a, b) => a.at - b.at);
    this.ats = items.map((item) => item.at);
    this.tallies = { counted: [ZERO], confirmed: [ZERO] };
    for (const item of items)
      for (const which of ['counted', 'confirmed'] as const) {
        const tallies = this.tallies[which];
        tallies.push(withItem(tallies[tallies.length - 1]!, which, item, 1));
      }
  }

  /** What the intents of `which` accepted at or before `at` add up to. */
  before(at: number, which: Counted): Tally {
    let [low, high] = [0, this.ats.length];
    while (low < high) {
      const mid = (low + high) >> 1;
      if (this.ats[mid]! <= at) low = mid + 1;
      else high = mid;
    }
    return this.tallies[which][low]!;
  }
}

/** Made once per hour (hours are immutable), when a window first starts in it: a memo, not state. */
const running = new WeakMap<Hour, Running>();
function runningOf(hour: Hour): Running {
  let made = running.get(hour);
  if (!made) running.set(hour, (made = new Running(hour)));
  return made;
}

export class Windows {
  static readonly empty = new Windows(PersistentMap(), [], NOTHING);

  private constructor(
    private readonly byId: PersistentMap<string, WindowItem>,
    /** By hour, oldest first. */
    private readonly hours: readonly Hour[],
    /** What all the intents kept add up to. */
    private readonly total: { counted: Tally; confirmed: Tally },
  ) {}

  get size(): number {
    return this.byId.size;
  }

  /** The intent under its id, if kept. */
  get(intentId: string): WindowItem | undefined {
    return this.byId.get(intentId);
  }

  has(intentId: string): boolean {
    return this.byId.has(intentId);
  }

  /** The ids, in the order of `values()`. */
  *keys(): IterableIterator<string> {
    for (const item of this.values()) yield item.intentId;
  }

  /** The intents in the order they were accepted (by hour, then as they came): as a log replays them. */
  *values(): IterableIterator<WindowItem> {
    for (const hour of this.hours) yield* hour.items;
  }

  /** With `item` added, or put in place of the intent of the same id (the same acceptance: its time and value). */
  with(item: WindowItem): Windows {
    const key = hourOf(item.at);
    const before = this.byId.get(item.intentId);
    // The hour's place: intents arrive in time order, give or take a clock, so it is looked for from the end.
    let at = this.hours.length;
    while (at > 0 && this.hours[at - 1]!.key > key) at -= 1;
    const hour = this.hours[at - 1]?.key === key ? this.hours[at - 1] : undefined;
    const hours = this.hours.slice();
    if (!hour) hours.splice(at, 0, { key, items: [item], ...shifted(NOTHING, undefined, item) });
    else {
      const items = hour.items.slice();
      if (before) items[items.indexOf(before)] = item;
      else items.push(item);
      hours[at - 1] = { key, items, ...shifted(hour, before, item) };
    }
    return new Windows(this.byId.set(item.intentId, item), hours, shifted(this.total, before, item));
  }

  /**
   * Without the settled intents accepted `retention` or more before `now`. A reserved intent is
   * kept however old: its outcome, days later, must still settle it.
   */
  pruned(now: number, retention: number): Windows {
    const old = (item: WindowItem) => item.status !== 'reserved' && now - item.at >= retention;
    const last = hourOf(now - retention);
    // An hour whose intents are all still reserved (counted, not confirmed) has nothing to drop.
    const settles = (hour: Hour) => hour.items.length > hour.counted.ops - hour.confirmed.ops;
    if (!this.hours.some((hour) => hour.key <= last && settles(hour) && hour.items.some(old))) return this;
    let byId = this.byId;
    let total = this.total;
    const hours: Hour[] = [];
    for (const hour of this.hours) {
      if (hour.key > last || !settles(hour) || !hour.items.some(old)) {
        hours.push(hour);
        continue;
      }
      const kept = hour.items.filter((item) => !old(item));
      for (const item of hour.items)
        if (old(item)) {
          byId = byId.delete(item.intentId);
          total = shifted(total, item, undefined);
        }
      if (kept.length) hours.push(tallied(hour.key, kept));
    }
    return new Windows(byId, hours, total);
  }

  /** The value spent by the intents of `which` accepted in the `span` before `now` (times ahead of it count). */
  spent(now: number, span: number, which: Counted): Big {
    return this.sum(now, span, which, true).spent;
  }

  /** How many intents of `which` were accepted in the `span` before `now` (times ahead of it count). */
  ops(now: number, span: number, which: Counted): number {
    return this.sum(now, span, which, false).ops;
  }

  /**
   * The hours wholly inside the window add their tallies, or, when fewer hours lie before it (the
   * daily window: an hour or two kept for clock skew), the total less theirs. In the hour the window
   * starts in, the intents before its start are found in the hour's running tallies. Values are
   * added only when asked for.
   */
  private sum(now: number, span: number, which: Counted, values: boolean): Tally {
    const hours = this.hours;
    const start = hourOf(now - span);
    const put = (tally: Tally, t: Tally, sign: 1 | -1) =>
      plus(tally, values ? t.spent : undefined, sign * t.ops);
    let edge = 0;
    while (edge < hours.length && hours[edge]!.key < start) edge += 1;
    const first = hours[edge]?.key === start ? hours[edge] : undefined;
    const after = hours.length - edge - (first ? 1 : 0);
    const forwards = after <= edge;
    let tally = forwards ? ZERO : put(ZERO, this.total[which], 1);
    if (forwards)
      for (let i = hours.length - after; i < hours.length; i++) tally = put(tally, hours[i]![which], 1);
    else for (let i = 0; i < edge; i++) tally = put(tally, hours[i]![which], -1);
    if (!first) return tally;
    // Outside the window: accepted at or before its start (time.ts: inWindow).
    const outside = runningOf(first).before(now - span, which);
    if (forwards) tally = put(tally, first[which], 1);
    return put(tally, outside, -1);
  }
}
