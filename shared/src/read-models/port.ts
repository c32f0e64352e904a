/**
 * The read-model store port: what the projections write and the state endpoints read. Keyed JSON
 * documents, sorted sets (time windows, newest-first history), integer counters, and one atomic
 * commit that applies a projection's writes together with its checkpoint. Adapters: Redis and
 * in-process; both pass the contract suite in contract.ts.
 *
 * Every store has a namespace (a key prefix), so a replay can build fresh models beside the live
 * ones and switch over.
 */
import type { LogPosition } from '../event-store/port';

export type ReadModelOp =
  | { op: 'set'; key: string; value: unknown }
  | { op: 'del'; key: string }
  | { op: 'incr'; key: string; by: number }
  | { op: 'zadd'; key: string; score: number; member: string }
  | { op: 'zrem'; key: string; member: string }
  /** Removes members with score <= max (drops what left a time window). */
  | { op: 'zremUpTo'; key: string; max: number }
  /** Keeps only the `keep` highest-scored members (bounds a newest-first list). */
  | { op: 'ztrim'; key: string; keep: number };

export interface ScoredMember {
  member: string;
  score: number;
}

export interface RangeOptions {
  /** Highest score first. */
  reverse?: boolean;
  limit?: number;
}

export interface ReadModelStore {
  readonly namespace: string;
  get<T>(key: string): Promise<T | undefined>;
  getMany<T>(keys: readonly string[]): Promise<(T | undefined)[]>;
  counter(key: string): Promise<number>;
  /** Members with min <= score <= max. */
  range(key: string, min: number, max: number, options?: RangeOptions): Promise<ScoredMember[]>;
  checkpoint(projection: string): Promise<LogPosition | undefined>;
  /**
   * Applies `ops` and moves the projection's checkpoint to `position`, all or nothing. When the
   * checkpoint is already at or past `position` nothing is applied and it answers false: an event
   * delivered twice, or by two projectors, changes the models once.
   */
  commit(projection: string, position: LogPosition, ops: readonly ReadModelOp[]): Promise<boolean>;
  /**
   * Every key of the namespace in one comparable form: a document as its JSON, a counter as its
   * number, a sorted set as its members by rank, the checkpoints. Two stores with equal dumps answer
   * every read alike (the equality check after a replay).
   */
  dump(): Promise<Map<string, string>>;
  /** Deletes every key of the namespace. */
  clear(): Promise<void>;
  close(): Promise<void>;
}

/** Position as text that sorts like the position: "commit:prepare". */
export const positionText = (p: LogPosition): string => `${p.commit}:${p.prepare}`;
export function positionFromText(text: string): LogPosition {
  const [commit, prepare] = text.split(':');
  return { commit: BigInt(commit!), prepare: BigInt(prepare!) };
}

/** One key of a store, as `entries()` of the in-process store gives it and the Redis store loads it. */
export type ReadModelEntry =
  | { kind: 'doc'; key: string; json: string }
  | { kind: 'counter'; key: string; value: number }
  | { kind: 'set'; key: string; members: [member: string, score: number][] }
  | { kind: 'checkpoint'; projection: string; position: LogPosition };

/** The comparable form of `dump()`, the same for every adapter. */
export function dumpOf(entries: Iterable<ReadModelEntry>): Map<string, string> {
  const out = new Map<string, string>();
  const checkpoints: [string, string][] = [];
  for (const e of entries) {
    if (e.kind === 'doc') out.set(e.key, e.json);
    else if (e.kind === 'counter') out.set(e.key, String(e.value));
    else if (e.kind === 'set') {
      if (e.members.length === 0) continue;
      const sorted = [...e.members].sort((a, b) => a[1] - b[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
      out.set(e.key, JSON.stringify(sorted));
    } else checkpoints.push([e.projection, positionText(e.position)]);
  }
  if (checkpoints.length) out.set('checkpoints', JSON.stringify(checkpoints.sort()));
  return new Map([...out].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)));
}
