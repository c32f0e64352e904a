/**
 * The event store on PostgreSQL: one table of events, one of stream revisions, one function that
 * appends a batch in a single round trip. The same SQL runs on a server (`pg`) and on PGlite.
 *
 * Gap-free global order. A bigserial position is taken when a row is inserted, not when its
 * transaction commits, so positions can become visible out of order. The log is therefore ordered by
 * (transaction id, position), and a reader only returns rows of transactions older than every
 * transaction still in flight (`pg_snapshot_xmin(pg_current_snapshot())`): a transaction that has
 * not committed yet holds back everything after it, and nothing is ever skipped.
 *
 * Group commit: appends that arrive while others are in flight travel together, one round trip and one
 * transaction (one WAL flush) for all of them. Each keeps its own expected revision and its own answer:
 * a conflict on one does not fail the others. An atomic append (`appendAtomically`: several streams,
 * each at its own expected revision) travels the same way, in a subtransaction of its own: a conflict
 * on any of its streams rolls all of it back, and the appends beside it in the transaction still land.
 *
 * Live subscriptions sleep until a NOTIFY or, as a safety net, a slow timer. The append transaction
 * sends the NOTIFY itself (PostgreSQL delivers it when it commits), announcing how far it reached and
 * which event types it held (announce.ts), so a subscriber reads only for the types it acts on. It
 * costs no round trip of its own; it does take PostgreSQL's notification lock at each commit, which
 * orders the commits of append transactions (measured in docs/performance.md).
 *
 * A store that is its log's only writer (`onlyWriter`: the embedded PGlite, one process) hands its
 * live subscribers what its appends committed instead, in process, in commit order (feed.ts): they
 * read the log only to catch up.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { v7 as uuidv7 } from 'uuid';
import type { Sql } from '../sql/sql';
import { contentHash } from './hash-chain';
import { WakePolicy } from './announce';
import { LiveFeed, type Tap } from './feed';
import { gatherTurn } from '../batching/turn';
import {
  LOG_START,
  WrongExpectedRevision,
  comparePositions,
  subscription,
  type AppendResult,
  type EventStore,
  type ExpectedRevision,
  type LogPosition,
  type NewEvent,
  type RecordedEvent,
  type StreamAppend,
  type SubscribeOptions,
  type Subscription,
} from './port';

export const CHANNEL = 'es_events';

/**
 * The schema and its two functions, as message-db keeps them: SQL files beside this one
 * (`sql/schema.sql`, `sql/es_append_one.sql`, `sql/es_append_batches.sql`), with their comments,
 * run in that order at every start (each statement may run again).
 */
export const SCHEMA_SQL = ['schema.sql', 'es_append_one.sql', 'es_append_batches.sql']
  .map((file) => readFileSync(join(__dirname, 'sql', file), 'utf8'))
  .join('\n');

const SELECT_EVENT = `SELECT global_position, transaction_id::text AS tx, stream_name, stream_revision, event_id, event_type, data, metadata, encode(hash, 'hex') AS hash FROM es_events`;

interface EventRow {
  global_position: string | bigint;
  tx: string;
  stream_name: string;
  stream_revision: string | bigint;
  event_id: string;
  event_type: string;
  data: unknown;
  metadata: RecordedEvent['metadata'];
  hash: string | null;
}

const toEvent = (row: EventRow): RecordedEvent => ({
  id: row.event_id,
  type: row.event_type,
  stream: row.stream_name,
  revision: BigInt(row.stream_revision),
  position: { commit: BigInt(row.tx), prepare: BigInt(row.global_position) },
  data: row.data,
  metadata: row.metadata,
  ...(row.hash !== null && { hash: row.hash }),
});

export interface PostgresEventStoreOptions {
  /** Largest batch a catch-up read or a subscription fetches at once. */
  batchSize?: number;
  /** How long a live subscription sleeps without a NOTIFY before it looks anyway. */
  idlePollMs?: number;
  /**
   * This store is its log's only writer (the embedded PGlite in one process): what its appends commit
   * is handed to its live subscribers in process instead of being read back (feed.ts). Never for a
   * PostgreSQL server that other processes append to: their events would not reach the subscribers.
   */
  onlyWriter?: boolean;
}

/** How soon a subscriber looks again for an announced event an older transaction held back (then doubling). */
const HELD_BACK_MS = 25;

/**
 * Append transactions in flight at once per process (a server's pool; an only writer, PGlite, has one
 * connection and runs one at a time), and batches per transaction at most.
 */
const APPENDS_IN_FLIGHT = 4;
const BATCHES_PER_APPEND = 64;
/** PostgreSQL's SQLSTATE for a transaction it aborted to break a deadlock, and how often one is sent. */
const DEADLOCK_DETECTED = '40P01';
const DEADLOCK_ATTEMPTS = 5;

interface StoredEvent {
  id: string;
  type: string;
  data: unknown;
  metadata: RecordedEvent['metadata'];
  /** Its content hash, hex (hash-chain.ts). */
  h: string;
}

/** One stream's batch as the append function takes it. */
interface Batch {
  stream: string;
  expected: ExpectedRevision;
  events: StoredEvent[];
}

/** A stream read, gathered with the others made in its turn (`gatherTurn`). */
interface StreamRead {
  stream: string;
  /** The first revision wanted, and how many events at most. */
  from: string;
  max: number;
}

/** An append waiting for its transaction: one batch, or several that land together or not at all. */
interface PendingAppend {
  batches: Batch[];
  atomic: boolean;
  resolve(results: AppendResult[]): void;
  reject(err: unknown): void;
}

interface AppendRow {
  item: number;
  next_revision: string | bigint | null;
  commit_position: string | null;
  prepare_position: string | bigint | null;
  conflict: boolean;
  actual: string | bigint | null;
  /** Each stored event's position and link, in revision order; null for a conflict or a repeat. */
  appended: [string, string][] | null;
}

/**
 * A JSON value as jsonb gives it back: undefined members left out, `toJSON` applied, and object keys
 * in jsonb's order (shortest first, then by their UTF-8 bytes). Events handed on in process are then
 * the very events a read would return.
 */
export function asStored(value: unknown): unknown {
  return jsonbOrder(JSON.parse(JSON.stringify(value)));
}

function jsonbOrder(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(jsonbOrder);
  const record = value as Record<string, unknown>;
  const ordered: Record<string, unknown> = {};
  for (const key of Object.keys(record).sort(jsonbKeyOrder)) ordered[key] = jsonbOrder(record[key]);
  return ordered;
}

const jsonbKeyOrder = (a: string, b: string): number =>
  Buffer.byteLength(a) - Buffer.byteLength(b) || Buffer.compare(Buffer.from(a), Buffer.from(b));

/** The events one batch stored, as a read of the log would return them. */
function storedEvents(p: Batch, row: AppendRow): RecordedEvent[] {
  const first = BigInt(row.next_revision!) - BigInt(p.events.length - 1);
  const commit = BigInt(row.commit_position!);
  return p.events.map((e, k): RecordedEvent => {
    const [prepare, hash] = row.appended![k]!;
    return {
      id: e.id,
      type: e.type,
      stream: p.stream,
      revision: first + BigInt(k),
      position: { commit, prepare: BigInt(prepare) },
      data: asStored(e.data),
      metadata: asStored(e.metadata) as RecordedEvent['metadata'],
      hash,
    };
  });
}

/** Events as the append function takes them: ids and timestamps given, each with its content hash. */
function prepared(events: readonly NewEvent[]): StoredEvent[] {
  const timestamp = new Date().toISOString();
  return events.map((e) => {
    const event = {
      // Time-ordered ids land at the end of the event-id index instead of on a random page.
      id: e.id ?? uuidv7(),
      type: e.type,
      data: e.data,
      metadata: { ...e.metadata, timestamp: e.metadata?.timestamp ?? timestamp },
    };
    return { ...event, h: contentHash(event).toString('hex') };
  });
}

export class PostgresEventStore implements EventStore {
  private readonly pending: PendingAppend[] = [];
  private appendsInFlight = 0;
  private readonly maxInFlight: number;
  private flushScheduled = false;
  private readonly gatheredRead = gatherTurn((reads: StreamRead[]) => this.readGathered(reads));
  private readonly batchSize: number;
  private readonly idlePollMs: number;
  /** Only when this store is its log's only writer. */
  private readonly feed: LiveFeed | undefined;

  private constructor(
    private readonly sql: Sql,
    options: PostgresEventStoreOptions,
  ) {
    this.batchSize = options.batchSize ?? 2_000;
    this.idlePollMs = options.idlePollMs ?? 1_000;
    this.feed = options.onlyWriter ? new LiveFeed() : undefined;
    this.maxInFlight = options.onlyWriter ? 1 : APPENDS_IN_FLIGHT;
  }

  /** Creates the tables and the append function if they are missing (safe to run from several processes). */
  static async open(sql: Sql, options: PostgresEventStoreOptions = {}): Promise<PostgresEventStore> {
    await sql.transaction(async (tx) => {
      await tx.query(`SELECT pg_advisory_xact_lock(7281946)`);
      await tx.exec(SCHEMA_SQL);
    });
    return new PostgresEventStore(sql, options);
  }

  /** Reads a log that is already there, creating nothing: for tools that may only read (audit verify). */
  static reader(sql: Sql, options: PostgresEventStoreOptions = {}): PostgresEventStore {
    return new PostgresEventStore(sql, options);
  }

  append(stream: string, events: readonly NewEvent[], expected: ExpectedRevision): Promise<AppendResult> {
    if (events.length === 0) return Promise.reject(new Error('append needs at least one event'));
    return this.enqueue([{ stream, expected, events: prepared(events) }], false).then((r) => r[0]!);
  }

  /** One atomic append in the group commit's transaction: a subtransaction that a conflict rolls back. */
  appendAtomically(appends: readonly StreamAppend[]): Promise<AppendResult[]> {
    if (appends.length === 0 || appends.some((a) => a.events.length === 0))
      return Promise.reject(new Error('an atomic append needs at least one event for each stream'));
    const batches = appends.map((a) => ({
      stream: a.stream,
      expected: a.expected,
      events: prepared(a.events),
    }));
    return this.enqueue(batches, batches.length > 1);
  }

  /**
   * On a server an append is sent at once, up to APPENDS_IN_FLIGHT transactions; the others wait and
   * travel together. An only writer (PGlite: one connection, and its work runs on this thread) sends
   * the appends made in one turn of the event loop together at its end, so that requests handled in
   * the same turn share a transaction instead of each taking its own.
   */
  private enqueue(batches: Batch[], atomic: boolean): Promise<AppendResult[]> {
    return new Promise((resolve, reject) => {
      this.pending.push({ batches, atomic, resolve, reject });
      if (!this.feed) return this.sendPending();
      if (this.flushScheduled) return;
      this.flushScheduled = true;
      setImmediate(() => {
        this.flushScheduled = false;
        this.sendPending();
      });
    });
  }

  /** Sends what waits, in up to `maxInFlight` transactions at once. */
  private sendPending(): void {
    while (this.appendsInFlight < this.maxInFlight && this.pending.length > 0) {
      const group = this.pending.splice(0, BATCHES_PER_APPEND);
      this.appendsInFlight += 1;
      void this.appendGroup(group).finally(() => {
        this.appendsInFlight -= 1;
        this.sendPending();
      });
    }
  }

  /**
   * Every append of the log goes through here: with a feed, what it stored is handed on in the order
   * the appends were sent (feed.ts), and an append made any other way would never reach a subscriber.
   */
  private async appendGroup(group: PendingAppend[]): Promise<void> {
    const wire = (b: Batch) => ({ s: b.stream, x: String(b.expected), e: b.events });
    // The function numbers its rows by batch: which append, and which of its batches, each row is.
    const owners = group.flatMap((p) => p.batches.map((batch, at) => ({ p, batch, at })));
    const items = JSON.stringify(
      group.map((p) => (p.atomic ? { all: p.batches.map(wire) } : wire(p.batches[0]!))),
    );
    const ticket = this.feed?.send();
    let rows: AppendRow[];
    for (let attempt = 1; ; attempt++) {
      try {
        rows = await this.sql.query<AppendRow>(
          `SELECT item, next_revision, commit_position::text, prepare_position, conflict, actual, appended FROM es_append_batches($1::jsonb)`,
          [items],
          'es_append_batches',
        );
        break;
      } catch (err) {
        // Transactions that lock the same streams in opposite orders (appends grouped in any order,
        // an atomic append's streams) can deadlock on a server; PostgreSQL then aborts one whole
        // transaction, so nothing of it landed and it is sent again.
        if ((err as { code?: unknown }).code === DEADLOCK_DETECTED && attempt < DEADLOCK_ATTEMPTS) continue;
        this.handOn(ticket, []);
        for (const p of group) p.reject(err);
        return;
      }
    }
    this.handOn(ticket, () =>
      rows
        .flatMap((row) => (row.appended ? storedEvents(owners[row.item]!.batch, row) : []))
        .sort((a, b) => comparePositions(a.position, b.position)),
    );
    const results = new Map<PendingAppend, AppendResult[]>(group.map((p) => [p, []]));
    for (const row of rows) {
      const { p, batch, at } = owners[row.item]!;
      if (row.conflict) {
        results.delete(p);
        p.reject(
          new WrongExpectedRevision(
            batch.stream,
            batch.expected,
            row.actual === null ? undefined : BigInt(row.actual),
          ),
        );
      } else {
        // Rows come in the order of the batches: `at` is where this one goes.
        results.get(p)?.splice(at, 0, {
          nextRevision: BigInt(row.next_revision!),
          position: { commit: BigInt(row.commit_position!), prepare: BigInt(row.prepare_position!) },
        });
      }
    }
    for (const [p, landed] of results) {
      if (landed.length === p.batches.length) p.resolve(landed);
      else p.reject(new Error('the append function answered for only part of an append'));
    }
  }

  /**
   * Hands on what an append stored once its callers have taken in the answer (the next turn of the
   * event loop): a subscriber never sees an append before the code that made it has gone on, as with
   * a read. The embedded repositories keep the state they appended, and the executor, handed an
   * acceptance by the relay, reads it from there: handed on sooner, it found the intent not accepted.
   */
  private handOn(
    ticket: number | undefined,
    stored: readonly RecordedEvent[] | (() => readonly RecordedEvent[]),
  ): void {
    if (ticket === undefined) return;
    const feed = this.feed!;
    setImmediate(() => {
      let events: readonly RecordedEvent[];
      try {
        events = typeof stored === 'function' ? stored() : stored;
      } catch (err) {
        // An answer it cannot make sense of: its subscribers fail rather than miss these events.
        return feed.close(err instanceof Error ? err : new Error(String(err)));
      }
      feed.committed(ticket, events);
    });
  }

  /**
   * Reads made in one turn of the event loop travel together, in one statement: an API instance reads
   * an agent's stream and its group's for each spend, an executor the agent's for each job it starts,
   * and under load many at once (the server bench counted 4.4 stream reads a transfer, one statement
   * and one round trip each). Each read sees the statement's snapshot, as a read sent alone then would.
   */
  readStream(
    stream: string,
    options: { fromRevision?: bigint; maxCount?: number } = {},
  ): Promise<RecordedEvent[]> {
    return this.gatheredRead({
      stream,
      from: String(options.fromRevision ?? 0n),
      max: options.maxCount ?? 1_000_000_000,
    });
  }

  private async readGathered(reads: StreamRead[]): Promise<RecordedEvent[][]> {
    if (reads.length === 1) {
      const { stream, from, max } = reads[0]!;
      const rows = await this.sql.query<EventRow>(
        `${SELECT_EVENT} WHERE stream_name = $1 AND stream_revision >= $2 ORDER BY stream_revision LIMIT $3`,
        [stream, from, max],
        'es_read_stream',
      );
      return [rows.map(toEvent)];
    }
    const rows = await this.sql.query<EventRow & { read: string | number }>(
      `SELECT r.read, e.* FROM unnest($1::text[], $2::bigint[], $3::bigint[]) WITH ORDINALITY AS r(stream, from_revision, max_count, read)
         CROSS JOIN LATERAL (${SELECT_EVENT} WHERE stream_name = r.stream AND stream_revision >= r.from_revision
                             ORDER BY stream_revision LIMIT r.max_count) e
         ORDER BY r.read, e.stream_revision`,
      [reads.map((r) => r.stream), reads.map((r) => r.from), reads.map((r) => r.max)],
      'es_read_streams',
    );
    const events: RecordedEvent[][] = reads.map(() => []);
    for (const row of rows) events[Number(row.read) - 1]!.push(toEvent(row));
    return events;
  }

  async readAll(options: { from?: LogPosition; maxCount?: number } = {}): Promise<RecordedEvent[]> {
    const from = options.from ?? LOG_START;
    const rows = await this.sql.query<EventRow>(
      `${SELECT_EVENT}
       WHERE (transaction_id, global_position) > ($1::text::xid8, $2::bigint)
         AND transaction_id < pg_snapshot_xmin(pg_current_snapshot())
       ORDER BY transaction_id, global_position
       LIMIT $3`,
      [String(from.commit), String(from.prepare), options.maxCount ?? this.batchSize],
      'es_read_all',
    );
    return rows.map(toEvent);
  }

  async readCorrelated(correlationId: string): Promise<RecordedEvent[]> {
    const rows = await this.sql.query<EventRow>(
      `${SELECT_EVENT} WHERE metadata ? 'correlation_id' AND metadata->>'correlation_id' = $1
       ORDER BY transaction_id, global_position`,
      [correlationId],
    );
    return rows.map(toEvent);
  }

  async headPosition(): Promise<LogPosition> {
    const [row] = await this.sql.query<{ tx: string | null; pos: string | bigint | null }>(
      `SELECT transaction_id::text AS tx, global_position AS pos FROM es_events
       WHERE transaction_id < pg_snapshot_xmin(pg_current_snapshot())
       ORDER BY transaction_id DESC, global_position DESC LIMIT 1`,
      [],
      'es_head',
    );
    return row?.tx ? { commit: BigInt(row.tx), prepare: BigInt(row.pos!) } : LOG_START;
  }

  subscribeToAll(options: SubscribeOptions): Subscription {
    return this.feed ? this.followFeed(this.feed, options) : this.followNotifications(options);
  }

  /**
   * The only writer's subscription: it reads the log until a read comes back short, then takes what
   * the feed hands on (feed.ts), with no read at all while it keeps up. The tap is taken before each
   * read, so what commits during the read reaches it too (the events the read also returned are
   * skipped by position): nothing is missed at the switch and nothing delivered twice. A subscriber
   * that falls behind by more than a batch loses its tap and reads again. `wakeFor` does not matter
   * here: every event is handed on as it commits, and there is no idle poll (nobody else appends).
   */
  private followFeed(feed: LiveFeed, options: SubscribeOptions): Subscription {
    let stopped = false;
    let tap: Tap | undefined;
    const run = async () => {
      try {
        await follow();
      } finally {
        tap?.finish('closed');
      }
    };
    const follow = async () => {
      let position = options.from ?? LOG_START;
      let caughtUp = false;
      const deliver = async (events: readonly RecordedEvent[]) => {
        for (const event of events) {
          if (stopped) return;
          if (comparePositions(event.position, position) <= 0) continue;
          await options.onEvent(event);
          position = event.position;
        }
      };
      while (!stopped) {
        tap = feed.tap(this.batchSize);
        if (tap.ended) break;
        const batch = await this.readAll({ from: position, maxCount: this.batchSize });
        await deliver(batch);
        if (batch.length === this.batchSize || stopped) {
          tap.finish('closed');
          continue;
        }
        if (!caughtUp) {
          caughtUp = true;
          options.onCaughtUp?.();
        }
        for (let live = await tap.take(); live.length > 0; live = await tap.take()) await deliver(live);
      }
      const end = tap?.ended;
      if (end instanceof Error) throw end;
    };
    return subscription(run(), () => {
      stopped = true;
      tap?.finish('closed');
    });
  }

  /** Reads at each NOTIFY that concerns it (announce.ts), and every `idlePollMs` without one. */
  private followNotifications(options: SubscribeOptions): Subscription {
    let stopped = false;
    let wake: (() => void) | undefined;
    let dirty = true;
    const policy = new WakePolicy(options.wakeFor);
    const poke = (payload?: string) => {
      if (!policy.announced(payload)) return;
      dirty = true;
      wake?.();
    };
    const sleep = (ms: number) =>
      new Promise<void>((resolve) => {
        if (dirty || stopped) return resolve();
        const timer = setTimeout(resolve, ms);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      }).finally(() => (wake = undefined));

    const run = async () => {
      const unlisten = await this.sql.listen(CHANNEL, poke);
      try {
        let position = options.from ?? LOG_START;
        let caughtUp = false;
        let heldBackMs = 0;
        while (!stopped) {
          dirty = false;
          const batch = await this.readAll({ from: position, maxCount: this.batchSize });
          for (const event of batch) {
            if (stopped) return;
            await options.onEvent(event);
            position = event.position;
          }
          policy.readUpTo(position);
          if (batch.length === this.batchSize) continue;
          if (!caughtUp) {
            caughtUp = true;
            options.onCaughtUp?.();
          }
          // An announced event still held back by an older transaction, which may never announce: look
          // again soon, backing off to the idle poll.
          heldBackMs = policy.owing() ? Math.min(this.idlePollMs, heldBackMs * 2 || HELD_BACK_MS) : 0;
          await sleep(heldBackMs || this.idlePollMs);
        }
      } finally {
        await unlisten();
      }
    };
    return subscription(run(), () => {
      stopped = true;
      wake?.();
    });
  }

  async close(): Promise<void> {
    this.feed?.close();
    await this.sql.close();
  }
}
