/**
 * The event store on EventStoreDB / KurrentDB through its gRPC client. Streams, expected revisions,
 * event ids and the $all log map one to one onto the port; system events ($-prefixed) are left out.
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

function toEvent(resolved: ResolvedEvent | AllStreamResolvedEvent): RecordedEvent | undefined {
  const e = resolved.event;
  if (!e || !e.isJson || e.type.startsWith('$')) return undefined;
  return {
    id: e.id,
    type: e.type,
    stream: e.streamId,
    revision: e.revision,
    position: e.position ? { commit: e.position.commit, prepare: e.position.prepare } : LOG_START,
    data: e.data,
    metadata: {
      timestamp: e.created.toISOString(),
      ...(e.metadata as JsonValue | undefined),
    } as RecordedEvent['metadata'],
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

  async append(
    stream: string,
    events: readonly NewEvent[],
    expected: ExpectedRevision,
  ): Promise<AppendResult> {
    const timestamp = new Date().toISOString();
    try {
      const result = await this.client.appendToStream(
        stream,
        events.map((e) =>
          jsonEvent({
            id: e.id ?? randomUUID(),
            type: e.type,
            data: e.data as JsonValue,
            metadata: { ...e.metadata, timestamp: e.metadata?.timestamp ?? timestamp },
          }),
        ),
        { expectedRevision: expectedFor(expected) },
      );
      return {
        nextRevision: result.nextExpectedRevision,
        position: result.position
          ? { commit: result.position.commit, prepare: result.position.prepare }
          : LOG_START,
      };
    } catch (err) {
      if (err instanceof WrongExpectedVersionError) {
        const actual = typeof err.actualVersion === 'bigint' ? err.actualVersion : undefined;
        throw new WrongExpectedRevision(stream, expected, actual);
      }
      throw err;
    }
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
    done.catch(() => undefined);
    return {
      done,
      stop: async () => {
        stopped = true;
        await subscription.unsubscribe();
        await done.catch(() => undefined);
      },
    };
  }

  async close(): Promise<void> {
    await this.client.dispose();
  }
}
