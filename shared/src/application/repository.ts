/**
 * Loads a stream's state (folded with its evolve function) and appends what a decision produced,
 * with the revision the decision was made on. A version conflict means another decision got there
 * first: reload and decide again. States are cached per stream with their revision, so loading reads
 * only the events appended since.
 *
 * Decisions on one stream are taken one at a time within a process (`exclusive`): a hundred parallel
 * requests of one agent queue here rather than race each other to the store, so a conflict can only
 * come from another process, and a retry meets at most a few.
 */
import AsyncLock from 'async-lock';
import {
  WrongExpectedRevision,
  type AppendResult,
  type EventStore,
  type ExpectedRevision,
  type LogPosition,
  type NewEvent,
  type StreamAppend,
} from '../event-store/port';
import { bindContext } from '../tracing/spans';
import type { Fold } from '../domain/decider';

export interface Loaded<S> {
  state: S;
  /** The last revision folded, or 'no_stream'. */
  revision: ExpectedRevision;
  /**
   * Where the last event folded is in the log, and when it was recorded (ms): what a read of the
   * views must include to show this state's writes (read your writes). Absent for an empty stream.
   */
  last?: LastWrite;
}

export interface LastWrite {
  position: LogPosition;
  at: number;
}

interface Cached<S> {
  state: S;
  revision: bigint;
  last: LastWrite;
}

/** How long a decision keeps retrying version conflicts before it gives up. */
export const CONFLICT_PATIENCE_MS = 5_000;

/**
 * The conflict-patience loop, written once: runs `attempt` again after each version conflict for up
 * to `patienceMs`, then lets the last conflict through. Each conflict means another process appended
 * to a stream the attempt read, so the log moves on while this waits.
 */
export async function withPatience<R>(
  attempt: () => Promise<R>,
  patienceMs = CONFLICT_PATIENCE_MS,
): Promise<R> {
  const giveUpAt = Date.now() + patienceMs;
  for (;;) {
    try {
      return await attempt();
    } catch (err) {
      if (!(err instanceof WrongExpectedRevision) || Date.now() >= giveUpAt) throw err;
    }
  }
}

/** An append a repository prepared (`stage`), to be made with others in one atomic append (`appendTogether`). */
export interface Staged {
  append: StreamAppend;
  /** Moves the repository's cache with what landed. */
  landed(result: AppendResult): void;
  /** The append failed (`err`) for this stream: as `append` does then. */
  failed(err: unknown): void;
}

/**
 * An append to a stream no repository keeps (a webhook's), at any revision: nothing decided on it can
 * be stale (each of its events stands alone), and nothing is cached to move.
 */
export const staged = (stream: string, events: readonly { type: string; data: unknown }[]): Staged => ({
  append: { stream, events: events.map((e) => ({ type: e.type, data: e.data })), expected: 'any' },
  landed: () => undefined,
  failed: () => undefined,
});

/**
 * Appends what repositories staged in one atomic append (the store must have `appendAtomically`):
 * every stream lands at the revision its decision was made on, or none does, and the
 * WrongExpectedRevision names the stream that had moved on.
 */
export async function appendTogether(store: EventStore, staged: readonly Staged[]): Promise<void> {
  const parts = staged.filter((s) => s.append.events.length > 0);
  if (parts.length === 0) return;
  const results = await store.appendAtomically!(parts.map((s) => s.append)).catch((err: unknown) => {
    for (const s of parts)
      if (!(err instanceof WrongExpectedRevision) || s.append.stream === err.stream) s.failed(err);
    throw err;
  });
  parts.forEach((s, i) => s.landed(results[i]!));
}

/**
 * Makes one staged append on its own, at the revision its decision was made on; a failure (a conflict,
 * or an append that may have landed) leaves the repository's cache to read the stream again.
 */
export async function appendStaged(store: EventStore, staged: Staged): Promise<void> {
  const { append } = staged;
  if (append.events.length === 0) return;
  const result = await store.append(append.stream, append.events, append.expected).catch((err: unknown) => {
    staged.failed(err);
    throw err;
  });
  staged.landed(result);
}

/**
 * Every event of one intent (its decision, its budget's reservation and settlement, its submission and
 * outcome) carries the intent's id as its correlation id: an auditor follows an intent across the
 * agent's and the budget's streams by it.
 */
function withCorrelation(data: unknown, metadata: NewEvent['metadata']): NewEvent['metadata'] {
  const intentId = (data as { intent_id?: unknown } | null)?.intent_id;
  if (typeof intentId !== 'string' || metadata?.correlation_id !== undefined) return metadata;
  return { ...metadata, correlation_id: intentId };
}

export class Repository<S, E extends { type: string; data: unknown }> {
  private readonly cache = new Map<string, Cached<S>>();
  private readonly locks = new AsyncLock({ maxPending: Infinity });

  private readonly initial: () => S;
  private readonly evolve: (state: S, event: E) => S;

  constructor(
    private readonly store: EventStore,
    /** How the streams' events fold into their state (the domain's `*Fold`). */
    fold: Fold<S, E>,
    private readonly maxCached = 50_000,
    /**
     * Single-writer mode: every append to these streams goes through this repository (one process,
     * the embedded default), so a cached state is current and is used without reading. Decisions stay
     * safe either way: an append expects the revision the decision was made on.
     */
    private readonly singleWriter = false,
  ) {
    this.initial = fold.initialState;
    this.evolve = fold.evolve;
  }

  async load(stream: string): Promise<Loaded<S>> {
    const cached = this.cache.get(stream);
    if (cached && this.singleWriter) return { ...cached };
    const from = cached ? cached.revision + 1n : 0n;
    const events = await this.store.readStream(stream, { fromRevision: from });
    if (!cached && events.length === 0) return { state: this.initial(), revision: 'no_stream' };
    if (cached && events.length === 0) return { ...cached };
    let state = cached ? cached.state : this.initial();
    for (const e of events) state = this.evolve(state, { type: e.type, data: e.data } as E);
    const e = events[events.length - 1]!;
    const last = { position: e.position, at: Date.parse(e.metadata.timestamp) || Date.now() };
    this.remember(stream, { state, revision: e.revision, last });
    return { state, revision: e.revision, last };
  }

  /**
   * Appends `events` at `expected`; on success the cache moves with them. Throws WrongExpectedRevision;
   * the cached state stays (a true prefix: the next load reads what came after it), unless this is the
   * single writer, whose cache a failed append (a conflict, or one that may have landed) leaves stale.
   */
  async append(
    stream: string,
    loaded: Loaded<S>,
    events: readonly E[],
    metadata?: NewEvent['metadata'],
  ): Promise<Loaded<S>> {
    if (events.length === 0) return loaded;
    await appendStaged(this.store, this.stage(stream, loaded, events, metadata));
    return this.peek(stream);
  }

  /** The append `append` would make, for `appendTogether` to make with others'. */
  stage(stream: string, loaded: Loaded<S>, events: readonly E[], metadata?: NewEvent['metadata']): Staged {
    return {
      append: {
        stream,
        events: events.map((e) => ({
          type: e.type,
          data: e.data,
          metadata: withCorrelation(e.data, metadata),
        })),
        expected: loaded.revision,
      },
      landed: (result) => {
        const state = events.reduce(this.evolve, loaded.state);
        this.remember(stream, {
          state,
          revision: result.nextRevision,
          last: { position: result.position, at: Date.now() },
        });
      },
      // The single writer's cache is stale after a conflict, and may be after any other failure (the
      // append may have landed, its answer lost on the way back): it is dropped, and the next load
      // reads. Otherwise the cached state stays (a true prefix: the next load reads what came after it).
      failed: () => {
        if (this.singleWriter) this.cache.delete(stream);
      },
    };
  }

  /**
   * Runs `work` when no other exclusive work on `stream` runs in this process; the queue is FIFO. The
   * work keeps its caller's trace, whoever's turn ends before it.
   */
  exclusive<R>(stream: string, work: () => Promise<R>): Promise<R> {
    return this.locks.acquire(stream, bindContext(work));
  }

  /**
   * The state this process last saw of `stream`, without reading the store: the initial state when it
   * has seen none. A decision made on it is safe only through the append's expected revision, so a
   * decision that appends nothing must be made again on a fresh `load`.
   */
  peek(stream: string): Loaded<S> {
    const cached = this.cache.get(stream);
    return cached ? { ...cached } : { state: this.initial(), revision: 'no_stream' };
  }

  /** The state this process last saw of `stream` (as `peek`), or a fresh load when it has seen none. */
  async recall(stream: string): Promise<Loaded<S>> {
    const cached = this.cache.get(stream);
    return cached ? { ...cached } : this.load(stream);
  }

  /**
   * Decide and append, exclusively; again on a version conflict, for up to `patienceMs`. The decision
   * is made on a fresh load (reading only what was appended since the cached state; nothing at all for
   * the single writer). Deciding first on the cached state, to save that read, lost more than it saved
   * on the server topology: the executors and the API instances write the same agent streams, so the
   * cache was stale about half the time, and each stale decision cost an append refused, a read and
   * the append again (docs/performance.md, issue 28, fifth session).
   */
  handle<R>(
    stream: string,
    decide: (state: S) => { events: E[]; result: R },
    patienceMs = CONFLICT_PATIENCE_MS,
  ): Promise<R> {
    return this.exclusive(stream, () =>
      withPatience(async () => {
        const loaded = await this.load(stream);
        const { events, result } = decide(loaded.state);
        await this.append(stream, loaded, events);
        return result;
      }, patienceMs),
    );
  }

  forget(stream: string): void {
    this.cache.delete(stream);
  }

  private remember(stream: string, entry: Cached<S>): void {
    if (this.cache.size >= this.maxCached && !this.cache.has(stream)) this.cache.clear();
    this.cache.set(stream, entry);
  }
}
