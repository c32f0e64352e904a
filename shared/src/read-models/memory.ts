/** The in-process read-model store: maps in this process, rebuilt from the event store at start. */
import { comparePositions, type LogPosition } from '../event-store/port';
import {
  dumpOf,
  type RangeOptions,
  type ReadModelEntry,
  type ReadModelOp,
  type ReadModelStore,
  type ScoredMember,
} from './port';
import { SortedSet } from './sorted-set';

/**
 * How documents are kept:
 * - `copies` (the default): as JSON text, parsed on every read; a reader may change what it gets.
 * - `frozen`: a JSON copy of what was written, deeply frozen, read back as that same object: a read
 *   costs nothing, and a reader that tries to change what it got throws (TypeError) instead of
 *   changing the store. For a service's views, read on every request.
 * - `shared`: the objects written, read back as the same objects, unfrozen. For a writer that never
 *   changes an object once written or read (the projection builds new ones) and readers that never
 *   change one either: a replay building models in memory.
 */
export type DocumentsKept = 'copies' | 'frozen' | 'shared';

export class MemoryReadModelStore implements ReadModelStore {
  /** Documents as JSON text, or as objects (see DocumentsKept). */
  private readonly docs = new Map<string, unknown>();
  private readonly counters = new Map<string, number>();
  private readonly sets = new Map<string, SortedSet>();
  private readonly checkpoints = new Map<string, LogPosition>();

  constructor(
    readonly namespace = 'rm',
    private readonly kept: DocumentsKept = 'copies',
  ) {}

  async get<T>(key: string): Promise<T | undefined> {
    const doc = this.docs.get(key);
    if (doc === undefined) return undefined;
    return (this.kept === 'copies' ? JSON.parse(doc as string) : doc) as T;
  }

  async getMany<T>(keys: readonly string[]): Promise<(T | undefined)[]> {
    return Promise.all(keys.map((k) => this.get<T>(k)));
  }

  async counter(key: string): Promise<number> {
    return this.counters.get(key) ?? 0;
  }

  /** The members are shared and frozen (sorted-set.ts): a range costs its array only. */
  async range(key: string, min: number, max: number, options: RangeOptions = {}): Promise<ScoredMember[]> {
    return this.sets.get(key)?.range(min, max, options.reverse, options.limit) ?? [];
  }

  async checkpoint(projection: string): Promise<LogPosition | undefined> {
    return this.checkpoints.get(projection);
  }

  async commit(projection: string, position: LogPosition, ops: readonly ReadModelOp[]): Promise<boolean> {
    const current = this.checkpoints.get(projection);
    if (current && comparePositions(current, position) >= 0) return false;
    for (const op of ops) this.apply(op);
    this.checkpoints.set(projection, position);
    return true;
  }

  private apply(op: ReadModelOp): void {
    const set = (key: string) => {
      let s = this.sets.get(key);
      if (!s) this.sets.set(key, (s = new SortedSet()));
      return s;
    };
    switch (op.op) {
      case 'set':
        this.docs.set(op.key, this.document(op.value));
        return;
      case 'del':
        this.docs.delete(op.key);
        this.counters.delete(op.key);
        this.sets.delete(op.key);
        return;
      case 'incr':
        this.counters.set(op.key, (this.counters.get(op.key) ?? 0) + op.by);
        return;
      case 'zadd':
        set(op.key).add(op.member, op.score);
        return;
      case 'zrem':
        set(op.key).delete(op.member);
        return;
      case 'zremUpTo':
        set(op.key).deleteUpTo(op.max);
        return;
      case 'ztrim':
        set(op.key).trim(op.keep);
        return;
    }
  }

  private document(value: unknown): unknown {
    if (this.kept === 'shared') return value;
    const text = JSON.stringify(value);
    return this.kept === 'copies' ? text : deepFreeze(JSON.parse(text));
  }

  /** Every key, for a bulk load into another store (a replay builds here, then loads Redis). */
  *entries(): Generator<ReadModelEntry> {
    for (const [key, doc] of this.docs)
      yield { kind: 'doc', key, json: this.kept === 'copies' ? (doc as string) : JSON.stringify(doc) };
    for (const [key, value] of this.counters) yield { kind: 'counter', key, value };
    for (const [key, set] of this.sets) if (set.size) yield { kind: 'set', key, members: set.entries() };
    for (const [projection, position] of this.checkpoints) yield { kind: 'checkpoint', projection, position };
  }

  async dump(): Promise<Map<string, string>> {
    return dumpOf(this.entries());
  }

  async clear(): Promise<void> {
    this.docs.clear();
    this.counters.clear();
    this.sets.clear();
    this.checkpoints.clear();
  }

  async close(): Promise<void> {}
}

/** Freezes a parsed JSON value and everything in it. */
function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}
