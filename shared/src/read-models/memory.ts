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

export class MemoryReadModelStore implements ReadModelStore {
  /** Documents as JSON text, or as the values themselves when `shared` (see the constructor). */
  private readonly docs = new Map<string, unknown>();
  private readonly counters = new Map<string, number>();
  private readonly sets = new Map<string, SortedSet>();
  private readonly checkpoints = new Map<string, LogPosition>();

  /**
   * `shared`: documents are kept as the objects written and read back as the same objects, without a
   * JSON copy each way. For a writer that never changes an object once written or read (the
   * projection builds new ones), such as a replay building models in memory; readers that might
   * change what they get should keep the default.
   */
  constructor(
    readonly namespace = 'rm',
    private readonly shared = false,
  ) {}

  async get<T>(key: string): Promise<T | undefined> {
    const doc = this.docs.get(key);
    if (doc === undefined) return undefined;
    return (this.shared ? doc : JSON.parse(doc as string)) as T;
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
        this.docs.set(op.key, this.shared ? op.value : JSON.stringify(op.value));
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

  /** Every key, for a bulk load into another store (a replay builds here, then loads Redis). */
  *entries(): Generator<ReadModelEntry> {
    for (const [key, doc] of this.docs)
      yield { kind: 'doc', key, json: this.shared ? JSON.stringify(doc) : (doc as string) };
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
