/**
 * The read models in Redis live in generations: each is a namespace `<prefix>:views:g<N>`, and one
 * pointer names the live one. The projector writes to the live generation only (its commits are
 * guarded by the pointer and its lease); a replay builds the next generation beside it and switches
 * the pointer once it has caught up; readers follow the pointer.
 */
import type Redis from 'ioredis';
import {
  positionFromText,
  type LogPosition,
  type RangeOptions,
  type ReadModelStore,
  type ScoredMember,
} from '@tokenops/shared';
import { POSITION_LUA, RedisReadModelStore, type CommitGuard } from '@tokenops/shared/adapters';
import { PROJECTION } from './agent-views';

// KEYS[1] the pointer, KEYS[2] the live generation's checkpoints, KEYS[3] the new one's; ARGV[1] the new
// namespace, ARGV[2] the projection, ARGV[3] the channel. Switches only if the new generation has
// applied at least what the live one has, so readers never step back.
const SWITCH_LUA = `${POSITION_LUA}
local live = redis.call('HGET', KEYS[2], ARGV[2])
local fresh = redis.call('HGET', KEYS[3], ARGV[2])
if live then
  if not fresh then return 0 end
  local lc, lp = position(live)
  local nc, np = position(fresh)
  if before(nc, np, lc, lp) then return 0 end
end
redis.call('SET', KEYS[1], ARGV[1])
redis.call('PUBLISH', ARGV[3], ARGV[1])
return 1`;

export class ViewGenerations {
  readonly pointer: string;
  readonly channel: string;
  private readonly counter: string;

  constructor(
    readonly redis: Redis,
    readonly prefix: string,
  ) {
    this.pointer = `${prefix}:views:live`;
    this.channel = `${prefix}:views:switched`;
    this.counter = `${prefix}:views:generations`;
  }

  namespace(generation: number): string {
    return `${this.prefix}:views:g${generation}`;
  }

  /** The live namespace; the first generation on a fresh Redis. */
  async live(): Promise<string> {
    const current = await this.redis.get(this.pointer);
    if (current) return current;
    await this.redis.set(this.counter, '1', 'NX');
    await this.redis.set(this.pointer, this.namespace(1), 'NX');
    return (await this.redis.get(this.pointer))!;
  }

  /** A fresh namespace for a replay (never the live one, never used before). */
  async next(): Promise<string> {
    await this.live();
    return this.namespace(await this.redis.incr(this.counter));
  }

  /** The guard that keeps a writer to `namespace` from writing once it is no longer live. */
  liveGuard(namespace: string): CommitGuard {
    return { key: this.pointer, value: namespace };
  }

  /** Makes `namespace` live if it has applied at least what the live one has; true if it did. */
  async switchTo(namespace: string): Promise<boolean> {
    const live = await this.live();
    const switched = await this.redis.eval(
      SWITCH_LUA,
      3,
      this.pointer,
      `${live}:checkpoints`,
      `${namespace}:checkpoints`,
      namespace,
      PROJECTION,
      this.channel,
    );
    return switched === 1;
  }

  /** Every generation namespace that holds keys, live or not. */
  async existing(): Promise<string[]> {
    const found = new Set<string>();
    let cursor = '0';
    do {
      const [next, keys] = await this.redis.scan(
        cursor,
        'MATCH',
        `${this.prefix}:views:g*:checkpoints`,
        'COUNT',
        1000,
      );
      cursor = next;
      for (const k of keys) found.add(k.slice(0, -':checkpoints'.length));
    } while (cursor !== '0');
    return [...found];
  }

  /** The live generation's checkpoint. */
  async liveCheckpoint(): Promise<LogPosition | undefined> {
    const text = await this.redis.hget(`${await this.live()}:checkpoints`, PROJECTION);
    return text ? positionFromText(text) : undefined;
  }
}

/**
 * The live read models, for readers (the API): every read goes to the generation the pointer names.
 * The pointer is re-read when a switch is announced, and every second in case an announcement was
 * missed (a reconnect).
 */
export class LiveViews implements ReadModelStore {
  private current: RedisReadModelStore;
  private readonly timer: NodeJS.Timeout;

  private constructor(
    private readonly generations: ViewGenerations,
    private readonly subscriber: Redis,
    namespace: string,
  ) {
    this.current = new RedisReadModelStore(generations.redis, namespace);
    this.timer = setInterval(() => void this.refresh(), 1_000);
    this.timer.unref();
  }

  static async open(generations: ViewGenerations): Promise<LiveViews> {
    const subscriber = generations.redis.duplicate({ enableOfflineQueue: true, maxRetriesPerRequest: null });
    subscriber.on('error', () => undefined);
    const views = new LiveViews(generations, subscriber, await generations.live());
    subscriber.on('message', () => void views.refresh());
    await subscriber.subscribe(generations.channel);
    return views;
  }

  private async refresh(): Promise<void> {
    const live = await this.generations.live().catch(() => this.current.namespace);
    if (live !== this.current.namespace) this.current = new RedisReadModelStore(this.generations.redis, live);
  }

  get namespace(): string {
    return this.current.namespace;
  }
  get<T>(key: string): Promise<T | undefined> {
    return this.current.get<T>(key);
  }
  getMany<T>(keys: readonly string[]): Promise<(T | undefined)[]> {
    return this.current.getMany<T>(keys);
  }
  counter(key: string): Promise<number> {
    return this.current.counter(key);
  }
  range(key: string, min: number, max: number, options?: RangeOptions): Promise<ScoredMember[]> {
    return this.current.range(key, min, max, options);
  }
  checkpoint(projection: string): Promise<LogPosition | undefined> {
    return this.current.checkpoint(projection);
  }
  commit(): Promise<boolean> {
    throw new Error('the live views are read-only: the projector writes them');
  }
  dump(): Promise<Map<string, string>> {
    return this.current.dump();
  }
  clear(): Promise<void> {
    throw new Error('the live views are read-only: a replay replaces them');
  }
  async close(): Promise<void> {
    clearInterval(this.timer);
    this.subscriber.disconnect();
  }
}
