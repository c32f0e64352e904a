/** The in-process read-model store: maps in this process, rebuilt from the event store at start. */
import { comparePositions, type LogPosition } from '../event-store/port';
import type { RangeOptions, ReadModelOp, ReadModelStore, ScoredMember } from './port';

export class MemoryReadModelStore implements ReadModelStore {
  private readonly docs = new Map<string, string>();
  private readonly counters = new Map<string, number>();
  private readonly sets = new Map<string, Map<string, number>>();
  private readonly checkpoints = new Map<string, LogPosition>();

  constructor(readonly namespace = 'rm') {}

  async get<T>(key: string): Promise<T | undefined> {
    const text = this.docs.get(key);
    return text === undefined ? undefined : (JSON.parse(text) as T);
  }

  async getMany<T>(keys: readonly string[]): Promise<(T | undefined)[]> {
    return Promise.all(keys.map((k) => this.get<T>(k)));
  }

  async counter(key: string): Promise<number> {
    return this.counters.get(key) ?? 0;
  }

  async range(key: string, min: number, max: number, options: RangeOptions = {}): Promise<ScoredMember[]> {
    const members = [...(this.sets.get(key) ?? new Map<string, number>())]
      .map(([member, score]) => ({ member, score }))
      .filter((m) => m.score >= min && m.score <= max)
      .sort((a, b) => a.score - b.score || (a.member < b.member ? -1 : a.member > b.member ? 1 : 0));
    if (options.reverse) members.reverse();
    return options.limit === undefined ? members : members.slice(0, options.limit);
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
      if (!s) this.sets.set(key, (s = new Map()));
      return s;
    };
    switch (op.op) {
      case 'set':
        this.docs.set(op.key, JSON.stringify(op.value));
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
        set(op.key).set(op.member, op.score);
        return;
      case 'zrem':
        set(op.key).delete(op.member);
        return;
      case 'zremUpTo':
        for (const [member, score] of set(op.key)) if (score <= op.max) set(op.key).delete(member);
        return;
      case 'ztrim': {
        const kept = [...set(op.key)].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? 1 : -1)).slice(0, op.keep);
        this.sets.set(op.key, new Map(kept));
        return;
      }
    }
  }

  async clear(): Promise<void> {
    this.docs.clear();
    this.counters.clear();
    this.sets.clear();
    this.checkpoints.clear();
  }

  async close(): Promise<void> {}
}
