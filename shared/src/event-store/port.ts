/**
 * The event store port: streams with optimistic concurrency, and one global log read and subscribed
 * in order. Adapters: PostgreSQL (server through `pg`, embedded through PGlite, the same SQL) and
 * EventStoreDB. Every adapter passes the one contract suite in contract.ts.
 */

/** A position in the global log. Ordered by commit, then prepare (EventStoreDB's own shape). */
export interface LogPosition {
  commit: bigint;
  prepare: bigint;
}

export const LOG_START: LogPosition = { commit: 0n, prepare: 0n };

export const comparePositions = (a: LogPosition, b: LogPosition): number =>
  a.commit === b.commit ? Number(a.prepare - b.prepare) : a.commit < b.commit ? -1 : 1;

export interface EventMetadata {
  correlation_id?: string;
  causation_id?: string;
  /** ISO 8601, set at append when absent. */
  timestamp?: string;
  /** The W3C trace context of the span that appended it, when tracing is on (tracing/traced-store.ts). */
  traceparent?: string;
  tracestate?: string;
  [key: string]: unknown;
}

export interface NewEvent {
  /** A UUID; appending again with the same ids stores nothing twice. Generated when absent. */
  id?: string;
  type: string;
  data: unknown;
  metadata?: EventMetadata;
}

export interface RecordedEvent {
  id: string;
  type: string;
  stream: string;
  /** 0-based position of the event in its stream. */
  revision: bigint;
  position: LogPosition;
  data: unknown;
  metadata: EventMetadata & { timestamp: string };
  /** Its link in the stream's hash chain, hex (hash-chain.ts); absent for events older than the chain. */
  hash?: string;
}

/** What the writer expects the stream to be: its exact last revision, or one of the three states. */
export type ExpectedRevision = bigint | 'any' | 'no_stream' | 'stream_exists';

export interface AppendResult {
  /** The revision of the last event written (the expected revision for the next append). */
  nextRevision: bigint;
  position: LogPosition;
}

/** One stream's part of an atomic append: its events, at its own expected revision. */
export interface StreamAppend {
  stream: string;
  events: readonly NewEvent[];
  expected: ExpectedRevision;
}

export class WrongExpectedRevision extends Error {
  constructor(
    readonly stream: string,
    readonly expected: ExpectedRevision,
    /** The stream's actual last revision, or undefined when it does not exist. */
    readonly actual: bigint | undefined,
  ) {
    super(
      `stream ${stream}: expected revision ${String(expected)}, actual ${actual === undefined ? 'no stream' : String(actual)}`,
    );
    this.name = 'WrongExpectedRevision';
  }
}

export interface Subscription {
  /** Stops delivering; resolves once the handler in flight, if any, has returned. */
  stop(): Promise<void>;
  /** Settles when the subscription ends: resolved on stop, rejected with the handler's or the store's error. */
  readonly done: Promise<void>;
}

/**
 * A subscription whose work is `done`: `halt` tells it to stop (a flag, a wake, an unsubscribe), then
 * stopping waits for it to end, whatever it ended with (`done` itself still rejects with it).
 */
export function subscription(done: Promise<void>, halt: () => void | Promise<void>): Subscription {
  done.catch(() => undefined);
  return {
    done,
    stop: async () => {
      await halt();
      await done.catch(() => undefined);
    },
  };
}

export interface SubscribeOptions {
  /** Deliver events after this position (exclusive); from the start when absent. */
  from?: LogPosition;
  /** Called once per event, in log order, one at a time. A throw ends the subscription. */
  onEvent(event: RecordedEvent): Promise<void> | void;
  /** Called once the subscription has delivered everything committed when it caught up. */
  onCaughtUp?(): void;
  /**
   * The event types this subscriber acts on: a hint that lets a store that is told what was appended
   * skip reading for appends of other types (PostgreSQL). Every event is still delivered, in order:
   * those of other types arrive with the next read.
   */
  wakeFor?: (type: string) => boolean;
}

/** `wakeFor` for a subscriber that acts on these types only. */
export const ofTypes =
  (...types: string[]) =>
  (type: string): boolean =>
    types.includes(type);

export interface EventStore {
  append(stream: string, events: readonly NewEvent[], expected: ExpectedRevision): Promise<AppendResult>;
  /**
   * Appends to several streams at once, each at its own expected revision, all or nothing: the results
   * in the order given, or a WrongExpectedRevision naming a stream whose expectation failed, and then
   * none of them landed. Only adapters that can do it atomically have it (PostgreSQL: one transaction);
   * EventStoreDB's client cannot, and a caller without it appends in turn (and undoes what it must).
   */
  appendAtomically?(appends: readonly StreamAppend[]): Promise<AppendResult[]>;
  /** Events of one stream from `fromRevision` (inclusive), in order; [] for a stream that does not exist. */
  readStream(
    stream: string,
    options?: { fromRevision?: bigint; maxCount?: number },
  ): Promise<RecordedEvent[]>;
  /** Events of the whole log after `from` (exclusive), in log order. Never skips an event that commits later. */
  readAll(options?: { from?: LogPosition; maxCount?: number }): Promise<RecordedEvent[]>;
  /** The position of the last event a reader can see now (LOG_START for an empty log). */
  headPosition(): Promise<LogPosition>;
  /** Catches up from `from`, then delivers live events as they commit. */
  subscribeToAll(options: SubscribeOptions): Subscription;
  /**
   * The events whose metadata names this correlation id (every event of one intent), in log order.
   * Only adapters that answer it from an index have it (PostgreSQL); readers without it scan the log.
   */
  readCorrelated?(correlationId: string): Promise<RecordedEvent[]>;
  close(): Promise<void>;
}

/** A store that answers as `store` does but for the methods given: how wrappers (fanout, reporting appends) are made. */
export function decorate(store: EventStore, overrides: Partial<EventStore>): EventStore {
  const readCorrelated = store.readCorrelated?.bind(store);
  const appendAtomically = store.appendAtomically?.bind(store);
  return {
    append: (...a) => store.append(...a),
    readStream: (...a) => store.readStream(...a),
    readAll: (...a) => store.readAll(...a),
    headPosition: () => store.headPosition(),
    subscribeToAll: (options) => store.subscribeToAll(options),
    close: () => store.close(),
    ...(readCorrelated && { readCorrelated }),
    ...(appendAtomically && { appendAtomically }),
    ...overrides,
  };
}
