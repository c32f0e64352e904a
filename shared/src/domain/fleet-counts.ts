/**
 * What a group's agents spent, for the windows of its group limits, as the policy preview counts it
 * (preview.ts): from the agents' own `intent.accepted` and `intent.failed`, in log order, whether or not
 * the group had limits then. It answers what the group's spends stream answers (group-limits.ts, a
 * persistent Windows) for the same intents: the value of those that spend and did not fail accepted in
 * the last 24 hours, the operations of the last 60 minutes (times ahead of `now` count), and an intent
 * by its id (fleet-counts.unit.spec.ts holds the two equal on generated histories).
 *
 * Why not a Windows: a persistent Windows copies the hour an intent lands in, and a fleet's hour holds
 * thousands of intents; a replay only reads forward, so this one is mutable, one array in time order
 * and, per window span asked for, where the window starts and what it holds. Each intent enters and
 * leaves a window once, give or take a clock that disagrees (a `now` earlier than the last one moves
 * the start back). Nothing is pruned: it lives as long as one replay.
 *
 * Pure of I/O; not a value of the domain's state (it is mutated): only the preview holds one.
 */
import Big from 'big.js';
import type { Counted, WindowItem } from './windows';

interface Item {
  intentId: string;
  at: number;
  value: Big;
  spends: boolean;
  failed: boolean;
}

/** One window span: where it starts in the items (the first accepted after `edge`), what it holds. */
interface Sliding {
  span: number;
  /** `now - span` of the last question (-Infinity before any): the window holds the items after it. */
  edge: number;
  start: number;
  spent: Big;
  ops: number;
}

const ZERO = new Big(0);

export class FleetCounts {
  /** In time order (arrival order among equal times). */
  private readonly items: Item[] = [];
  private readonly byId = new Map<string, Item>();
  private readonly windows = new Map<number, Sliding>();

  /** An accepted intent (its first acceptance only: one decided again is the same intent). */
  counted(d: { intent_id: string; at: number; value: string; spends: boolean }): void {
    if (this.byId.has(d.intent_id)) return;
    const item: Item = {
      intentId: d.intent_id,
      at: d.at,
      value: new Big(d.value),
      spends: d.spends,
      failed: false,
    };
    this.byId.set(item.intentId, item);
    const items = this.items;
    let i = items.length;
    while (i > 0 && items[i - 1]!.at > item.at) i -= 1;
    if (i === items.length) items.push(item);
    else items.splice(i, 0, item);
    for (const w of this.windows.values())
      if (item.at > w.edge) add(w, item, 1);
      // Before the window's start (it lies at or before the edge): the start moves one on.
      else w.start += 1;
  }

  /** The intent failed: it no longer counts. */
  released(intentId: string): void {
    const item = this.byId.get(intentId);
    if (!item || item.failed) return;
    for (const w of this.windows.values()) if (item.at > w.edge) add(w, item, -1);
    item.failed = true;
  }

  /** The intent under its id, as a Windows keeps it (counted intents are `confirmed` there). */
  get(intentId: string): WindowItem | undefined {
    const item = this.byId.get(intentId);
    return (
      item && {
        intentId: item.intentId,
        action: item.spends ? 'transfer' : 'withdraw',
        at: item.at,
        value: item.value,
        spends: item.spends,
        status: item.failed ? 'failed' : 'confirmed',
      }
    );
  }

  /** The value of the intents that spend, accepted in the `span` before `now`, not failed. */
  spent(now: number, span: number, _which: Counted): Big {
    return this.window(now, span).spent;
  }

  /** The intents accepted in the `span` before `now`, not failed. */
  ops(now: number, span: number, _which: Counted): number {
    return this.window(now, span).ops;
  }

  private window(now: number, span: number): Sliding {
    let w = this.windows.get(span);
    if (!w) {
      w = { span, edge: Number.NEGATIVE_INFINITY, start: 0, spent: ZERO, ops: 0 };
      for (const item of this.items) add(w, item, 1);
      this.windows.set(span, w);
    }
    const edge = now - span;
    const items = this.items;
    // Outside the window: accepted at or before its edge (time.ts: inWindow).
    while (w.start < items.length && items[w.start]!.at <= edge) add(w, items[w.start++]!, -1);
    while (w.start > 0 && items[w.start - 1]!.at > edge) add(w, items[--w.start]!, 1);
    w.edge = edge;
    return w;
  }
}

/** `w` with `item` put in (1) or taken out (-1), where it counts (not failed). */
function add(w: Sliding, item: Item, sign: 1 | -1): void {
  if (item.failed) return;
  w.ops += sign;
  if (item.spends) w.spent = sign > 0 ? w.spent.plus(item.value) : w.spent.minus(item.value);
}
