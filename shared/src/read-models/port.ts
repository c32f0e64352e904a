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
