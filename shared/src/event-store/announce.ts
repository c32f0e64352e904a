/**
 * What an append transaction tells subscribers when it commits (the PostgreSQL store's NOTIFY payload,
 * sent by `es_append_batches`: `<transaction>/<position> <type>,<type>...`), and when a subscriber
 * reads because of it.
 *
 * An announcement names the furthest log position the transaction's appends reached and the event
 * types they held. A subscriber that acts on a few types (`wakeFor`: the executor relay on
 * `intent.accepted`, an outcome waiter on `intent.confirmed` and `intent.failed`) reads only when an
 * announcement names one of them, not after every append of the service: most appends are of types
 * it skips anyway, and each read is a round trip to the database.
 *
 * A reader sees a transaction only once every older one has committed (postgres.ts), so a read just
 * after an announcement may not see the announced events yet. The subscriber therefore remembers the
 * furthest position announced for it and reads again at every announcement, of any type, until it
 * has read that far: whatever held the events back has committed by then, and its own announcement
 * says so. What held them back may announce nothing (a transaction that appends nothing, of another
 * part of the service or another client of the server): while it owes a read, the subscriber also
 * looks again soon by itself (postgres.ts: 25 ms, doubling up to its idle poll). An announcement without a payload (listening began again, or too much to tell) means
 * "anything may have changed".
 */
import { comparePositions, type LogPosition } from './port';

export interface Announcement {
  position: LogPosition;
  types: ReadonlySet<string>;
}

export function parseAnnouncement(payload: string | undefined): Announcement | undefined {
  const match = payload ? /^(\d+)\/(\d+) (.*)$/.exec(payload) : null;
  if (!match) return undefined;
  return {
    position: { commit: BigInt(match[1]!), prepare: BigInt(match[2]!) },
    types: new Set(match[3]!.split(',')),
  };
}

/** Decides, for one subscriber, whether an announcement calls for a read. */
export class WakePolicy {
  private readonly wanted: ((type: string) => boolean) | undefined;
  /** The furthest position announced with a type this subscriber acts on, not read up to yet. */
  private owed: LogPosition | undefined;

  constructor(wakeFor: ((type: string) => boolean) | undefined) {
    this.wanted = wakeFor;
  }

  /** True when the subscriber should read now. */
  announced(payload: string | undefined): boolean {
    const a = this.wanted && parseAnnouncement(payload);
    if (!a) return true;
    if ([...a.types].some(this.wanted)) {
      if (!this.owed || comparePositions(a.position, this.owed) > 0) this.owed = a.position;
      return true;
    }
    return this.owed !== undefined;
  }

  /** Whether an announced position is still to be read (it was held back). */
  owing(): boolean {
    return this.owed !== undefined;
  }

  /** The subscriber has read up to `position`. */
  readUpTo(position: LogPosition): void {
    if (this.owed && comparePositions(position, this.owed) >= 0) this.owed = undefined;
  }
}
