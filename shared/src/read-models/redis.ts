/**
 * The read-model store on Redis. Documents are strings of JSON, counters are integers, windows and
 * lists are sorted sets. `commit` is one Lua script, so the writes and the checkpoint land together
 * or not at all, and a checkpoint at or past the position makes it a no-op (idempotent projections,
 * several projectors).
 */
import Redis from 'ioredis';
import { guarded } from '../errors/unavailable';
import type { LogPosition } from '../event-store/port';
import {
  positionFromText,
  positionText,
  dumpOf,
  type RangeOptions,
  type ReadModelEntry,
  type ReadModelOp,
  type ReadModelStore,
  type ScoredMember,
} from './port';

/**
 * Lua for checkpoints written as "commit:prepare" (positionText): `position(text)` splits one, and
 * `before(c1, p1, c2, p2)` compares two exactly, as non-negative integers in text (no float rounding).
 * Every script that compares checkpoints starts with it.
 */
export const POSITION_LUA = `
local function position(text)
  local sep = string.find(text, ':', 1, true)
  return string.sub(text, 1, sep - 1), string.sub(text, sep + 1)
end
local function cmp(a, b)
  if #a ~= #b then return #a < #b and -1 or 1 end
  if a == b then return 0 end
  return a < b and -1 or 1
end
local function before(c1, p1, c2, p2)
  local c = cmp(c1, c2)
  if c ~= 0 then return c < 0 end
  return cmp(p1, p2) < 0
end
`;

// KEYS[1] is the checkpoint hash, KEYS[2..] the keys the ops touch (declared, as Redis asks), then
// the guard keys. ARGV[1] projection, ARGV[2] commit, ARGV[3] prepare, ARGV[4] the ops as JSON (keys
// by index), ARGV[5] the values the guard keys must hold, as JSON (the last #guards KEYS).
const COMMIT_LUA = `${POSITION_LUA}
local guards = cjson.decode(ARGV[5])
for i, expected in ipairs(guards) do
  if redis.call('GET', KEYS[#KEYS - #guards + i]) ~= expected then return -1 end
end
local current = redis.call('HGET', KEYS[1], ARGV[1])
if current then
  local cc, cp = position(current)
  if not before(cc, cp, ARGV[2], ARGV[3]) then return 0 end
end
local ops = cjson.decode(ARGV[4])
for _, o in ipairs(ops) do
  local k = KEYS[o.k + 1]
  if o.op == 'set' then redis.call('SET', k, o.v)
  elseif o.op == 'del' then redis.call('DEL', k)
  elseif o.op == 'incr' then redis.call('INCRBY', k, o.n)
  elseif o.op == 'zadd' then redis.call('ZADD', k, o.s, o.m)
  elseif o.op == 'zrem' then redis.call('ZREM', k, o.m)
  elseif o.op == 'zremUpTo' then redis.call('ZREMRANGEBYSCORE', k, '-inf', o.s)
  elseif o.op == 'ztrim' then redis.call('ZREMRANGEBYRANK', k, 0, -(o.n + 1))
  end
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2] .. ':' .. ARGV[3])
return 1
`;

/** A commit refused by a guard: this writer lost its lease, or its models are no longer the live ones. */
export class FencedOut extends Error {
  constructor(readonly namespace: string) {
    super(`read-model commit to ${namespace} refused: the writer's guard no longer holds`);
  }
}

/** A key that must hold `value` for a commit to apply (a lease token, the live generation). */
export interface CommitGuard {
  key: string;
  value: string;
}

type Commander = Redis & {
  commitReadModel(numKeys: number, ...args: (string | number)[]): Promise<number>;
};

export class RedisReadModelStore implements ReadModelStore {
  private readonly redis: Commander;

  constructor(
    redis: Redis,
    readonly namespace = 'rm',
    private readonly guards: readonly CommitGuard[] = [],
  ) {
    if (!('commitReadModel' in redis)) redis.defineCommand('commitReadModel', { lua: COMMIT_LUA });
    this.redis = guarded('the read models (Redis)', redis as Commander);
  }

  static connect(url: string, namespace?: string): RedisReadModelStore {
    return new RedisReadModelStore(new Redis(url, { maxRetriesPerRequest: 2 }), namespace);
  }

  private k(key: string): string {
    return `${this.namespace}:${key}`;
  }

  async get<T>(key: string): Promise<T | undefined> {
    const text = await this.redis.get(this.k(key));
    return text === null ? undefined : (JSON.parse(text) as T);
  }

  async getMany<T>(keys: readonly string[]): Promise<(T | undefined)[]> {
    if (keys.length === 0) return [];
    const texts = await this.redis.mget(...keys.map((key) => this.k(key)));
    return texts.map((t) => (t === null ? undefined : (JSON.parse(t) as T)));
  }

  async counter(key: string): Promise<number> {
    return Number((await this.redis.get(this.k(key))) ?? 0);
  }

  async range(key: string, min: number, max: number, options: RangeOptions = {}): Promise<ScoredMember[]> {
    const k = this.k(key);
    const limit = options.limit;
    const flat = options.reverse
      ? limit === undefined
        ? await this.redis.zrevrangebyscore(k, max, min, 'WITHSCORES')
        : await this.redis.zrevrangebyscore(k, max, min, 'WITHSCORES', 'LIMIT', 0, limit)
      : limit === undefined
        ? await this.redis.zrangebyscore(k, min, max, 'WITHSCORES')
        : await this.redis.zrangebyscore(k, min, max, 'WITHSCORES', 'LIMIT', 0, limit);
    const out: ScoredMember[] = [];
    for (let i = 0; i < flat.length; i += 2) out.push({ member: flat[i]!, score: Number(flat[i + 1]) });
    return out;
  }

  async checkpoint(projection: string): Promise<LogPosition | undefined> {
    const text = await this.redis.hget(this.k('checkpoints'), projection);
    return text === null ? undefined : positionFromText(text);
  }

  async commit(projection: string, position: LogPosition, ops: readonly ReadModelOp[]): Promise<boolean> {
    const keys: string[] = [this.k('checkpoints')];
    const index = new Map<string, number>();
    const keyIndex = (key: string) => {
      let i = index.get(key);
      if (i === undefined) {
        keys.push(this.k(key));
        i = keys.length - 1;
        index.set(key, i);
      }
      return i;
    };
    const encoded = ops.map((o) => {
      const k = keyIndex(o.key);
      switch (o.op) {
        case 'set':
          return { op: o.op, k, v: JSON.stringify(o.value) };
        case 'del':
          return { op: o.op, k };
        case 'incr':
          return { op: o.op, k, n: o.by };
        case 'zadd':
          return { op: o.op, k, s: o.score, m: o.member };
        case 'zrem':
          return { op: o.op, k, m: o.member };
        case 'zremUpTo':
          return { op: o.op, k, s: o.max };
        case 'ztrim':
          return { op: o.op, k, n: o.keep };
      }
    });
    for (const g of this.guards) keys.push(g.key);
    const [commit, prepare] = positionText(position).split(':') as [string, string];
    const applied = await this.redis.commitReadModel(
      keys.length,
      ...keys,
      projection,
      commit,
      prepare,
      JSON.stringify(encoded),
      JSON.stringify(this.guards.map((g) => g.value)),
    );
    if (applied === -1) throw new FencedOut(this.namespace);
    return applied === 1;
  }

  /** Writes entries (a model built in memory) in pipelined batches; the namespace should be empty. */
  async load(entries: Iterable<ReadModelEntry>, batch = 2_000): Promise<void> {
    let pipeline = this.redis.pipeline();
    let n = 0;
    for (const e of entries) {
      if (e.kind === 'doc') pipeline.set(this.k(e.key), e.json);
      else if (e.kind === 'counter') pipeline.set(this.k(e.key), String(e.value));
      else if (e.kind === 'set') {
        if (e.members.length) pipeline.zadd(this.k(e.key), ...e.members.flatMap(([m, s]) => [s, m]));
      } else pipeline.hset(this.k('checkpoints'), e.projection, positionText(e.position));
      if (++n % batch === 0) {
        await pipeline.exec();
        pipeline = this.redis.pipeline();
      }
    }
    await pipeline.exec();
  }

  async dump(): Promise<Map<string, string>> {
    const entries: ReadModelEntry[] = [];
    const prefix = `${this.namespace}:`;
    let cursor = '0';
    do {
      const [next, keys] = await this.redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
      cursor = next;
      const types = await Promise.all(keys.map((k) => this.redis.type(k)));
      for (const [i, full] of keys.entries()) {
        const key = full.slice(prefix.length);
        if (types[i] === 'zset') {
          const flat = await this.redis.zrange(full, 0, -1, 'WITHSCORES');
          const members: [string, number][] = [];
          for (let j = 0; j < flat.length; j += 2) members.push([flat[j]!, Number(flat[j + 1])]);
          entries.push({ kind: 'set', key, members });
        } else if (types[i] === 'hash' && key === 'checkpoints') {
          for (const [projection, text] of Object.entries(await this.redis.hgetall(full)))
            entries.push({ kind: 'checkpoint', projection, position: positionFromText(text) });
        } else if (types[i] === 'string') {
          const text = (await this.redis.get(full)) ?? '';
          // A counter is an integer written by INCRBY; a document is JSON (a number document reads the same).
          entries.push(
            /^-?\d+$/.test(text)
              ? { kind: 'counter', key, value: Number(text) }
              : { kind: 'doc', key, json: text },
          );
        }
      }
    } while (cursor !== '0');
    return dumpOf(entries);
  }

  async clear(): Promise<void> {
    let cursor = '0';
    do {
      const [next, keys] = await this.redis.scan(cursor, 'MATCH', `${this.namespace}:*`, 'COUNT', 1000);
      if (keys.length) await this.redis.unlink(...keys);
      cursor = next;
    } while (cursor !== '0');
  }

  async close(): Promise<void> {
    await this.redis.quit();
  }
}
