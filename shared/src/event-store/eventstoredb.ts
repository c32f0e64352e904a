/**
 * The event store on EventStoreDB / KurrentDB through its gRPC client. Streams, expected revisions,
 * event ids and the $all log map one to one onto the port; system events ($-prefixed) are left out.
 *
 * No `appendAtomically`: this client (`@eventstore/db-client` 6) appends to one stream at a time, so
 * a caller that writes to several streams appends in turn and undoes what it must (the spend pipeline
 * reserves the budget, then accepts, and releases a reservation whose acceptance failed). KurrentDB
 * 25.1 and later append to several streams atomically (`multiStreamAppend`, in `@kurrent/kurrentdb-client`);
 * with that server and client this adapter could offer it, each stream's hash-chain link computed
 * from its tail as `append` does.
 */
import { guarded } from '../errors/unavailable';
import {
  ANY,
  BACKWARDS,
  END,
  EventStoreDBClient,
  FORWARDS,
  NO_STREAM,
  START,
  STREAM_EXISTS,
  StreamNotFoundError,
  WrongExpectedVersionError,
  excludeSystemEvents,
  jsonEvent,
  type AllStreamResolvedEvent,
  type ResolvedEvent,
} from '@eventstore/db-client';
import { randomUUID } from 'node:crypto';
import { GENESIS_LINK, contentHash, linkHash } from './hash-chain';
import {
  LOG_START,
  WrongExpectedRevision,
  comparePositions,
  type AppendResult,
  type EventStore,
  type ExpectedRevision,
  type LogPosition,
  type NewEvent,
  type RecordedEvent,
  type SubscribeOptions,
  subscription as stoppable,
  type Subscription,
} from './port';

type JsonValue = Record<string, unknown>;

const expectedFor = (expected: ExpectedRevision) =>
  expected === 'any'
    ? ANY
    : expected === 'no_stream'
      ? NO_STREAM
      : expected === 'stream_exists'
        ? STREAM_EXISTS
        : expected;

/** The metadata key that carries an event's link in its stream's hash chain. */
const CHAIN_LINK = 'chain_link';

function toEvent(resolved: ResolvedEvent | AllStreamResolvedEvent): RecordedEvent | undefined {
  const e = resolved.event;
  if (!e || !e.isJson || e.type.startsWith('$')) return undefined;
  const { [CHAIN_LINK]: link, ...metadata } = (e.metadata ?? {}) as JsonValue;
  return {
    id: e.id,
    type: e.type,
    stream: e.streamId,
    revision: e.revision,
    position: e.position ? { commit: e.position.commit, prepare: e.position.prepare } : LOG_START,
    data: e.data,
    metadata: { timestamp: e.created.toISOString(), ...metadata } as RecordedEvent['metadata'],
    ...(typeof link === 'string' && { hash: link }),
  };
}

export class EventStoreDbEventStore implements EventStore {
  private constructor(private readonly client: EventStoreDBClient) {}

  /** `connectionString` as `esdb://host:2113?tls=false`. */
  static connect(connectionString: string): EventStoreDbEventStore {
    // Its appends answer DependencyUnavailable when the server does not (UnavailableError).
    return new EventStoreDbEventStore(
      guarded('the event store (EventStoreDB)', EventStoreDBClient.connectionString(connectionString)),
    );
  }

  /**
   * Appends with each event's link in the stream's hash chain (hash-chain.ts) in its metadata
   * (`chain_link`). The link needs the stream's last event, so the append is made at the exact
   * revision that was read: `any` and `stream_exists` become that revision and are retried when
   * another writer got there first (their callers asked for no particular revision); an exact or
   * `no_stream` expectation is the caller's own and a conflict is theirs.
   */
  async append(
    stream: string,
    events: readonly NewEvent[],
    expected: ExpectedRevision,
  ): Promise<AppendResult> {
    const timestamp = new Date().toISOString();
    const batch = events.map((e) => ({
      id: e.id ?? randomUUID(),
      type: e.type,
      data: e.data as JsonValue,
      metadata: { ...e.metadata, timestamp: e.metadata?.timestamp ?? timestamp },
    }));
    for (let attempt = 0; ; attempt++) {
      const tail = await this.tail(stream, batch.length);
      const last = tail[0];
      // The same events appended again (a retry after an answer was lost): answer, store nothing.
      if (last && tail.some((e) => e.id === batch[0]!.id))
        return { nextRevision: last.revision, position: last.position };
      const at =
        typeof expected === 'bigint' || expected === 'no_stream'
          ? expected
          : (last?.revision ?? (expected === 'any' ? 'no_stream' : 'stream_exists'));
      let link = last?.hash ? Buffer.from(last.hash, 'hex') : GENESIS_LINK;
      const linked = batch.map((e) => {
        link = linkHash(link, contentHash(e));
        return jsonEvent({ ...e, metadata: { ...e.metadata, [CHAIN_LINK]: link.toString('hex') } });
      });
      try {
        const result = await this.client.appendToStream(stream, linked, {
          expectedRevision: expectedFor(at),
        });
        return {
          nextRevision: result.nextExpectedRevision,
          position: result.position
            ? { commit: result.position.commit, prepare: result.position.prepare }
            : LOG_START,
        };
      } catch (err) {
        if (!(err instanceof WrongExpectedVersionError)) throw err;
        if (at !== expected && attempt < 20) continue;
        const actual = typeof err.actualVersion === 'bigint' ? err.actualVersion : undefined;
        throw new WrongExpectedRevision(stream, expected, actual);
      }
    }
  }

  /** The stream's last `count` events, newest first ([] when it does not exist). */
  private async tail(stream: string, count: number): Promise<RecordedEvent[]> {
    const out: RecordedEvent[] = [];
    try {
      for await (const resolved of this.client.readStream(stream, {
        fromRevision: END,
        direction: BACKWARDS,
        maxCount: count,
      })) {
        const event = toEvent(resolved);
        if (event) out.push(event);
      }
    } catch (err) {
      if (err instanceof StreamNotFoundError) return [];
      throw err;
    }
    return out;
  }

  async readStream(
    stream: string,
    options: { fromRevision?: bigint; maxCount?: number } = {},
  ): Promise<RecordedEvent[]> {
    const out: RecordedEvent[] = [];
    try {
      for await (const resolved of this.client.readStream(stream, {
        fromRevision: options.fromRevision ?? START,
        direction: FORWARDS,
        ...(options.maxCount !== undefined && { maxCount: options.maxCount }),
      })) {
        const event = toEvent(resolved);
        if (event) out.push(event);
      }
    } catch (err) {
      if (err instanceof StreamNotFoundError) return [];
      throw err;
    }
    return out;
  }

  async readAll(options: { from?: LogPosition; maxCount?: number } = {}): Promise<RecordedEvent[]> {
    const from = options.from;
    const maxCount = options.maxCount ?? 2_000;
    const out: RecordedEvent[] = [];
    // $all reads include the event at `from`; the port's `from` is exclusive, so read one more.
    for await (const resolved of this.client.readAll({
      fromPosition: from && comparePositions(from, LOG_START) > 0 ? from : START,
      direction: FORWARDS,
      maxCount: maxCount + 1,
    })) {
      const event = toEvent(resolved);
      if (!event || (from && comparePositions(event.position, from) <= 0)) continue;
      out.push(event);
      if (out.length === maxCount) break;
    }
    return out;
  }

  async headPosition(): Promise<LogPosition> {
    for await (const resolved of this.client.readAll({
      fromPosition: END,
      direction: BACKWARDS,
      maxCount: 20,
    })) {
      const event = toEvent(resolved);
      if (event) return event.position;
    }
    return LOG_START;
  }

  subscribeToAll(options: SubscribeOptions): Subscription {
    const from = options.from;
    const subscription = this.client.subscribeToAll({
      fromPosition: from && comparePositions(from, LOG_START) > 0 ? from : START,
      filter: excludeSystemEvents(),
    });
    if (options.onCaughtUp) subscription.on('caughtUp', options.onCaughtUp);
    let stopped = false;
    const done = (async () => {
      for await (const resolved of subscription) {
        if (stopped) break;
        const event = toEvent(resolved);
        if (!event || (from && comparePositions(event.position, from) <= 0)) continue;
        await options.onEvent(event);
      }
    })();
    return stoppable(done, async () => {
      stopped = true;
      await subscription.unsubscribe();
    });
  }

  async close(): Promise<void> {
    await this.client.dispose();
  }
}
