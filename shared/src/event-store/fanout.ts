/**
 * One subscription to the log, shared by several readers in one process (projection, relay, outcome
 * waiter): each event is read once and handed to each reader in turn. A reader that joins later from
 * a position the shared subscription has already passed gets a subscription of its own.
 */
import {
  LOG_START,
  comparePositions,
  decorate,
  type EventStore,
  type LogPosition,
  type RecordedEvent,
  type SubscribeOptions,
  type Subscription,
} from './port';

interface Reader {
  options: SubscribeOptions;
  from: LogPosition;
  stopped: boolean;
  fail(err: unknown): void;
  end(): void;
}

export class LogFanout {
  private readonly readers = new Set<Reader>();
  private underlying: Subscription | undefined;
  private dispatched: LogPosition = LOG_START;
  private caughtUp = false;

  constructor(private readonly store: EventStore) {}

  /** An event store whose subscriptions share this fanout; everything else goes to the store. */
  view(): EventStore {
    return decorate(this.store, { subscribeToAll: (options) => this.subscribe(options) });
  }

  private subscribe(options: SubscribeOptions): Subscription {
    const from = options.from ?? LOG_START;
    if (this.underlying && comparePositions(from, this.dispatched) < 0)
      return this.store.subscribeToAll(options);
    let fail!: (err: unknown) => void;
    let end!: () => void;
    const done = new Promise<void>((resolve, reject) => {
      end = resolve;
      fail = reject;
    });
    done.catch(() => undefined);
    const reader: Reader = { options, from, stopped: false, fail, end };
    this.readers.add(reader);
    if (!this.underlying) setImmediate(() => this.start());
    else if (this.caughtUp) options.onCaughtUp?.();
    return {
      done,
      stop: async () => {
        reader.stopped = true;
        this.readers.delete(reader);
        end();
        if (this.readers.size === 0) await this.underlying?.stop();
      },
    };
  }

  private start(): void {
    if (this.underlying) return;
    let earliest: LogPosition | undefined;
    for (const r of this.readers) if (!earliest || comparePositions(r.from, earliest) < 0) earliest = r.from;
    this.dispatched = earliest ?? LOG_START;
    this.underlying = this.store.subscribeToAll({
      from: this.dispatched,
      onCaughtUp: () => {
        this.caughtUp = true;
        for (const r of this.readers) r.options.onCaughtUp?.();
      },
      onEvent: (event) => this.dispatch(event),
    });
    this.underlying.done.catch((err: unknown) => {
      for (const r of this.readers) r.fail(err);
    });
  }

  private async dispatch(event: RecordedEvent): Promise<void> {
    for (const reader of [...this.readers]) {
      if (reader.stopped || comparePositions(event.position, reader.from) <= 0) continue;
      try {
        await reader.options.onEvent(event);
      } catch (err) {
        reader.stopped = true;
        this.readers.delete(reader);
        reader.fail(err);
      }
    }
    this.dispatched = event.position;
  }
}
