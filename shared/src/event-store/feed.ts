/**
 * What a store's own appends committed, handed to its live subscribers in process, for a store that
 * is its log's only writer (the embedded PGlite: one process, one connection). The events an append
 * committed, with their log positions, are known when its statement returns; reading them back,
 * once per subscriber, was half of PGlite's statements a transfer (docs/performance.md, issue 28).
 *
 * Commit order. Appends are numbered as they are sent (`send`). PGlite runs statements one at a time,
 * in the order they were sent, so that is also the order they commit in; an append's events are
 * handed on only after those of every append sent before it, whichever answer arrives first. A failed
 * append hands on nothing. Each event handed on must come after the one before: anything else means
 * the log has another writer, and the feed fails its subscribers rather than deliver out of order.
 *
 * A subscriber taps the feed before its last catch-up read (postgres.ts): whatever commits from then
 * on reaches the tap, and what the read returned too is skipped by position. A tap holds at most
 * `limit` events: one whose subscriber falls further behind is dropped (back pressure without an
 * unbounded buffer), and that subscriber reads the log again until it is caught up.
 */
import { comparePositions, type LogPosition, type RecordedEvent } from './port';

/** Why a tap hands on nothing more: its subscriber fell behind, it was closed, or the feed failed. */
export type TapEnd = 'behind' | 'closed' | Error;

export class Tap {
  private events: RecordedEvent[] = [];
  private wake: (() => void) | undefined;
  private end: TapEnd | undefined;

  constructor(
    private readonly limit: number,
    private readonly onEnd: (tap: Tap) => void,
  ) {}

  /** Why it ended, once it has. */
  get ended(): TapEnd | undefined {
    return this.end;
  }

  push(event: RecordedEvent): void {
    if (this.end) return;
    if (this.events.length >= this.limit) return this.finish('behind');
    this.events.push(event);
    this.wake?.();
  }

  /** Everything handed on since the last take, waiting for something when there is nothing; [] once ended. */
  async take(): Promise<RecordedEvent[]> {
    while (this.events.length === 0 && !this.end) await new Promise<void>((resolve) => (this.wake = resolve));
    this.wake = undefined;
    const taken = this.events;
    this.events = [];
    return taken;
  }

  finish(end: TapEnd): void {
    if (this.end) return;
    this.end = end;
    this.events = [];
    this.onEnd(this);
    this.wake?.();
  }
}

export class LiveFeed {
  private readonly taps = new Set<Tap>();
  private sent = 0;
  private next = 0;
  private readonly answered = new Map<number, readonly RecordedEvent[]>();
  private last: LogPosition | undefined;
  private end: TapEnd | undefined;

  /** Numbers an append as it is sent: the order its events are handed on in. */
  send(): number {
    return this.sent++;
  }

  /** What append `ticket` committed, in log order ([] when it failed or stored nothing new). */
  committed(ticket: number, events: readonly RecordedEvent[]): void {
    this.answered.set(ticket, events);
    for (let ready = this.answered.get(this.next); ready; ready = this.answered.get(this.next)) {
      this.answered.delete(this.next);
      this.next += 1;
      for (const event of ready) this.hand(event);
    }
  }

  /** A tap that receives every event handed on from now, `limit` of them waiting at most. */
  tap(limit: number): Tap {
    const tap = new Tap(limit, (t) => this.taps.delete(t));
    if (this.end) tap.finish(this.end);
    else this.taps.add(tap);
    return tap;
  }

  /** Ends every tap, and those taken later. */
  close(end: TapEnd = 'closed'): void {
    this.end ??= end;
    for (const tap of [...this.taps]) tap.finish(this.end);
  }

  private hand(event: RecordedEvent): void {
    if (this.end) return;
    if (this.last && comparePositions(event.position, this.last) <= 0)
      return this.close(
        new Error(
          `the log's only writer appended at ${String(event.position.commit)}/${String(event.position.prepare)}, ` +
            `not after ${String(this.last.commit)}/${String(this.last.prepare)}: another process writes to it`,
        ),
      );
    this.last = event.position;
    for (const tap of this.taps) tap.push(event);
  }
}
