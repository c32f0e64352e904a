/**
 * The read-model store on Redis. Documents are strings of JSON, counters are integers, windows and
 * lists are sorted sets. `commit` is one Lua script, so the writes and the checkpoint land together
 * or not at all, and a checkpoint at or past the position makes it a no-op (idempotent projections,
 * several projectors).
 */
import Redis from 'ioredis';
import type { LogPosition } from '../event-store/port';
import {
  positionFromText,
  positionText,
  type RangeOptions,
  type ReadModelOp,
  type ReadModelStore,
  type ScoredMember,
} from './port';

// KEYS[1] is the checkpoint hash, KEYS[2..] the keys the ops touch (declared, as Redis asks).
// ARGV[1] projection, ARGV[2] commit, ARGV[3] prepare, ARGV[4] the ops as JSON (keys by index).
const COMMIT_LUA = `
local function before(c1, p1, c2, p2)
  -- Compares non-negative integers written as text, exactly (no float rounding).
  local function cmp(a, b)
    if #a ~= #b then return #a < #b and -1 or 1 end
    if a == b then return 0 end
    return a < b and -1 or 1
  end
  local c = cmp(c1, c2)
  if c ~= 0 then return c < 0 end
  return cmp(p1, p2) < 0
end
local current = redis.call('HGET', KEYS[1], ARGV[1])
if current then
  local sep = string.find(current, ':', 1, true)
  local cc, cp = string.sub(current, 1, sep - 1), string.sub(current, sep + 1)
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

type Commander = Redis & {
  commitReadModel(numKeys: number, ...args: (string | number)[]): Promise<number>;
};

export class RedisReadModelStore implements ReadModelStore {
  private readonly redis: Commander;

  constructor(
    redis: Redis,
    readonly namespace = 'rm',
  ) {
    this.redis = redis as Commander;
    if (!('commitReadModel' in redis)) redis.defineCommand('commitReadModel', { lua: COMMIT_LUA });
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
    const [commit, prepare] = positionText(position).split(':') as [string, string];
    const applied = await this.redis.commitReadModel(
      keys.length,
      ...keys,
      projection,
      commit,
      prepare,
      JSON.stringify(encoded),
    );
    return applied === 1;
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
