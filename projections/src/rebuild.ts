/**
 * Replay: rebuilds the read models from the whole log into a fresh generation, switches the live
 * pointer to it once it has caught up, then checks it: the generation it replaced stopped at a known
 * checkpoint, and a model rebuilt from the log up to that checkpoint must equal it key for key.
 *
 * The bulk of the log is projected in memory and loaded into Redis in pipelined batches (one Lua
 * commit per event would be the slowest part); the tail is followed live like the projector does.
 */
import type Redis from 'ioredis';
import { comparePositions, type EventStore, type LogPosition, type Token } from '@tokenops/shared';
import { Lease, MemoryReadModelStore, RedisReadModelStore } from '@tokenops/shared/adapters';
import { PROJECTION, project } from './agent-views';
import { ViewGenerations } from './generations';
import { startProjection } from './runner';

/**
 * Where a replay is: its phase; in the phases that go over the log (build, verify), the log position
 * reached and the head's (events on PostgreSQL: the share done and the ETA come from these), and the
 * events replayed so far in this phase. Told once per event then.
 */
export interface ReplayProgress {
  phase: 'build' | 'load' | 'catch-up' | 'verify';
  done: number;
  total: number;
  events: number;
}

export interface ReplayReport {
  namespace: string;
  replaced: string;
  /** Events projected in bulk (the tail followed live before the switch is not counted). */
  events: number;
  buildMs: number;
  /** Keys compared, and those that differ (empty when the check passed). */
  compared: number;
  differences: string[];
}

const BATCH = 5_000;

/** Projects the log after `from` up to `until` (inclusive; the head when absent) into `views`. */
export async function projectInto(
  store: EventStore,
  views: MemoryReadModelStore,
  tokens: readonly Token[],
  options: {
    from?: LogPosition;
    until?: LogPosition;
    /** Told after each event projected: its position and the events projected so far. */
    onEvent?(position: LogPosition, events: number): void;
  } = {},
): Promise<{ position: LogPosition | undefined; events: number }> {
  let from = options.from;
  let events = 0;
  // The next batch is read while this one is projected: the database and the projection overlap.
  const read = (after: LogPosition | undefined) =>
    store.readAll({ ...(after && { from: after }), maxCount: BATCH });
  let next = read(from);
  for (;;) {
    const batch = await next;
    if (batch.length === BATCH) next = read(batch[batch.length - 1]!.position);
    for (const event of batch) {
      if (options.until && comparePositions(event.position, options.until) > 0)
        return { position: from, events };
      await views.commit(PROJECTION, event.position, await project(event, views, tokens));
      from = event.position;
      events++;
      options.onEvent?.(from, events);
    }
    if (batch.length < BATCH) return { position: from, events };
  }
}

/** Compares two dumps; the keys that differ, at most `limit` of them. */
export function differences(a: Map<string, string>, b: Map<string, string>, limit = 20): string[] {
  const out: string[] = [];
  for (const key of new Set([...a.keys(), ...b.keys()])) {
    if (a.get(key) !== b.get(key)) out.push(key);
    if (out.length >= limit) break;
  }
  return out;
}

export async function replay(options: {
  store: EventStore;
  redis: Redis;
  prefix: string;
  tokens: readonly Token[];
  onProgress?(p: ReplayProgress): void;
  /** How long to keep trying to switch while the live projector stays ahead. */
  switchTimeoutMs?: number;
}): Promise<ReplayReport> {
  const { redis } = options;
  const generations = new ViewGenerations(redis, options.prefix);
  // One replay at a time: a second would drop the generation the first is building.
  const exclusive = new Lease(redis, `${options.prefix}:views:replay-lease`, 10_000);
  if (!(await exclusive.hold({ onLost: () => undefined, aborted: () => true })))
    throw new Error('another replay is running (or one was killed: its lease runs out within 10 s)');
  try {
    return await replayHolding(options, generations);
  } finally {
    await exclusive.release();
  }
}

async function replayHolding(
  options: Parameters<typeof replay>[0],
  generations: ViewGenerations,
): Promise<ReplayReport> {
  const { store, redis, tokens } = options;
  const started = Date.now();
  const namespace = await generations.next();
  const target = new RedisReadModelStore(redis, namespace);
  await target.clear();

  // 1. Build the bulk in memory.
  const head = await store.headPosition();
  const total = Number(head.prepare);
  const memory = new MemoryReadModelStore(namespace, 'shared');
  const progress = (phase: ReplayProgress['phase'], done: number, events: number) =>
    options.onProgress?.({ phase, done, total: Math.max(total, done), events });
  const counting =
    (phase: ReplayProgress['phase']) =>
    (p: LogPosition, events: number): void =>
      progress(phase, Number(p.prepare), events);
  progress('build', 0, 0);
  const built = await projectInto(store, memory, tokens, { until: head, onEvent: counting('build') });

  // 2. Load it into the fresh generation.
  progress('load', total, built.events);
  await target.load(memory.entries());

  // 3. Follow the log from there, batched like the live projector (so it keeps pace), and switch once
  //    this generation has applied what the live one has.
  const events = built.events;
  const tail = await startProjection(store, target, tokens);
  let replaced = '';
  try {
    await Promise.race([tail.caughtUp, tail.subscription.done]);
    progress('catch-up', total, built.events);
    const deadline = Date.now() + (options.switchTimeoutMs ?? 60_000);
    for (;;) {
      replaced = await generations.live();
      if (await generations.switchTo(namespace)) break;
      if (Date.now() > deadline)
        throw new Error('the replay could not catch up with the live projector in time');
      await new Promise((r) => setTimeout(r, 20));
    }
  } finally {
    await tail.subscription.stop();
  }
  const buildMs = Date.now() - started;

  // 4. Check: the replaced generation no longer moves; the log replayed up to its checkpoint must equal it.
  const old = new RedisReadModelStore(redis, replaced);
  const oldAt = await old.checkpoint(PROJECTION);
  let diff: string[] = [];
  let compared = 0;
  if (oldAt) {
    progress('verify', 0, 0);
    const check = new MemoryReadModelStore(replaced, 'shared');
    await projectInto(store, check, tokens, { until: oldAt, onEvent: counting('verify') });
    const [expected, actual] = await Promise.all([check.dump(), old.dump()]);
    compared = expected.size;
    diff = differences(expected, actual);
  }
  // The replaced generation (and any a killed replay left behind) is dropped once checked.
  if (diff.length === 0)
    for (const ns of await generations.existing())
      if (ns !== namespace) await new RedisReadModelStore(redis, ns).clear();
  return { namespace, replaced, events, buildMs, compared, differences: diff };
}

/**
 * The equality check alone: replays the log up to the live generation's checkpoint in memory and
 * compares key for key. Meant for a quiet log (under load the live models move while they are read:
 * it then tries again, a few times).
 */
export async function verifyLive(options: {
  store: EventStore;
  redis: Redis;
  prefix: string;
  tokens: readonly Token[];
}): Promise<{ namespace: string; compared: number; differences: string[] }> {
  const generations = new ViewGenerations(options.redis, options.prefix);
  for (let attempt = 0; ; attempt++) {
    const namespace = await generations.live();
    const live = new RedisReadModelStore(options.redis, namespace);
    const at = await live.checkpoint(PROJECTION);
    const actual = await live.dump();
    const after = await live.checkpoint(PROJECTION);
    if (at && after && comparePositions(at, after) !== 0 && attempt < 5) continue;
    const check = new MemoryReadModelStore(namespace, 'shared');
    if (at) await projectInto(options.store, check, options.tokens, { until: at });
    const expected = await check.dump();
    return { namespace, compared: expected.size, differences: differences(expected, actual) };
  }
}
