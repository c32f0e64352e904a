/**
 * The health of several RPC nodes of one cluster, as rules over what each node last did (pure: the
 * adapter, rpc-nodes.ts, feeds them what its calls saw and the time). A node that failed (did not
 * answer, timed out, an HTTP error) is set aside for a backoff that doubles with each failure in a
 * row, from `backoffMs` up to `maxBackoffMs`, then tried again; one answer brings it back. A node
 * whose slot is more than `maxSlotLag` behind the highest slot of the nodes not set aside is set aside
 * too, as lagging, until it catches up (reads from it would be stale, its preflights would refuse
 * fresh blockhashes). Reads go to the healthiest node: the highest slot, then the fewest errors, then
 * the first listed; sends go to every healthy node. When every node is set aside, all of them are
 * used anyway: asking beats refusing, and the call's failure says the chain is away.
 */

export interface NodeState {
  /** Failures in a row; 0 once the node answers. */
  failures: number;
  /** Failures in all, which rank healthy nodes for reads. */
  errors: number;
  /** The slot the node last answered (getSlot), if it ever did. */
  slot?: number;
  /** Set aside until then (ms since the epoch), after a failure. */
  asideUntil?: number;
  /** What its last failure was, said without the node's URL. */
  reason?: string;
}

export interface HealthRules {
  /** Slots a node may be behind the highest before it is set aside. */
  maxSlotLag: number;
  /** The first backoff after a failure (ms); it doubles with each failure in a row. */
  backoffMs: number;
  maxBackoffMs: number;
}

export type NodeStatus =
  | { healthy: true }
  | { healthy: false; why: 'failing'; reason: string; retryAt: number }
  | { healthy: false; why: 'lagging'; behind: number };

export const freshNode = (): NodeState => ({ failures: 0, errors: 0 });

/** The node answered (with its slot when the call was getSlot). */
export function answered(state: NodeState, slot?: number): NodeState {
  return { failures: 0, errors: state.errors, slot: slot ?? state.slot };
}

/** The node failed at `now`: set aside for a backoff doubling with each failure in a row. */
export function failed(state: NodeState, now: number, rules: HealthRules, reason: string): NodeState {
  const failures = state.failures + 1;
  const backoff = Math.min(rules.backoffMs * 2 ** Math.min(failures - 1, 30), rules.maxBackoffMs);
  return { ...state, failures, errors: state.errors + 1, asideUntil: now + backoff, reason };
}

/** Whether a failed node is set aside at `now` (its backoff has not passed). */
const failing = (s: NodeState, now: number): boolean =>
  s.asideUntil !== undefined && s.asideUntil > now && s.failures > 0;

/** Each node's status at `now`. */
export function statuses(states: readonly NodeState[], now: number, rules: HealthRules): NodeStatus[] {
  const slots = states.filter((s) => !failing(s, now) && s.slot !== undefined).map((s) => s.slot!);
  const highest = slots.length > 0 ? Math.max(...slots) : undefined;
  return states.map((s): NodeStatus => {
    if (failing(s, now))
      return { healthy: false, why: 'failing', reason: s.reason ?? 'failed', retryAt: s.asideUntil! };
    if (highest !== undefined && s.slot !== undefined && highest - s.slot > rules.maxSlotLag)
      return { healthy: false, why: 'lagging', behind: highest - s.slot };
    return { healthy: true };
  });
}

/** The nodes to use at `now`: the healthy ones, or every node when none is. */
function usable(states: readonly NodeState[], now: number, rules: HealthRules): number[] {
  const healthy = statuses(states, now, rules).flatMap((s, i) => (s.healthy ? [i] : []));
  return healthy.length > 0 ? healthy : states.map((_, i) => i);
}

/** The nodes a read tries, in order: the healthiest first (highest slot, fewest errors, first listed). */
export function readOrder(states: readonly NodeState[], now: number, rules: HealthRules): number[] {
  return usable(states, now, rules).sort((a, b) => {
    const sa = states[a]!;
    const sb = states[b]!;
    return (sb.slot ?? -1) - (sa.slot ?? -1) || sa.errors - sb.errors || a - b;
  });
}

/** The nodes a transaction is sent to: every healthy one (every node when none is). */
export function sendTargets(states: readonly NodeState[], now: number, rules: HealthRules): number[] {
  return usable(states, now, rules);
}

/** The nodes whose backoff has passed or that answer as usual: those a periodic probe asks. */
export function probeDue(states: readonly NodeState[], now: number): number[] {
  return states.flatMap((s, i) => (failing(s, now) ? [] : [i]));
}
