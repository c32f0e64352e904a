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
 * Live subscriptions sleep until a NOTIFY (sent after each append commits, coalesced per process)
 * or, as a safety net, a slow timer.
 */
import { randomUUID } from 'node:crypto';
import type { Sql } from '../sql/sql';
import {
  LOG_START,
  WrongExpectedRevision,
  type AppendResult,
  type EventStore,
  type ExpectedRevision,
  type LogPosition,
  type NewEvent,
  type RecordedEvent,
  type SubscribeOptions,
  type Subscription,
} from './port';

export const CHANNEL = 'es_events';

export const SCHEMA_SQL = `
CREATE TABLE IF NOT EXISTS es_streams (
  stream_name text PRIMARY KEY,
  revision bigint NOT NULL
);
CREATE TABLE IF NOT EXISTS es_events (
  global_position bigserial PRIMARY KEY,
  transaction_id xid8 NOT NULL DEFAULT pg_current_xact_id(),
  stream_name text NOT NULL,
  stream_revision bigint NOT NULL,
  event_id uuid NOT NULL UNIQUE,
  event_type text NOT NULL,
  data jsonb NOT NULL,
  metadata jsonb NOT NULL,
  UNIQUE (stream_name, stream_revision)
);
CREATE INDEX IF NOT EXISTS es_events_log ON es_events (transaction_id, global_position);

CREATE OR REPLACE FUNCTION es_append(p_stream text, p_expected text, p_events jsonb)
RETURNS TABLE (next_revision bigint, commit_position xid8, prepare_position bigint)
LANGUAGE plpgsql AS $fn$
DECLARE
  n int := jsonb_array_length(p_events);
  new_rev bigint;
  actual bigint;
  last_pos bigint;
BEGIN
  -- The same event ids appended again: answer the first append, store nothing.
  IF EXISTS (SELECT 1 FROM es_events WHERE event_id = (p_events->0->>'id')::uuid) THEN
    RETURN QUERY
      SELECT max(e.stream_revision), max(e.transaction_id::text)::xid8, max(e.global_position)
      FROM es_events e
      WHERE e.event_id IN (SELECT (x->>'id')::uuid FROM jsonb_array_elements(p_events) x)
        AND e.stream_name = p_stream;
    RETURN;
  END IF;

  IF p_expected = 'any' THEN
    INSERT INTO es_streams AS s VALUES (p_stream, n - 1)
    ON CONFLICT (stream_name) DO UPDATE SET revision = s.revision + n
    RETURNING s.revision INTO new_rev;
  ELSIF p_expected = 'no_stream' THEN
    INSERT INTO es_streams VALUES (p_stream, n - 1) ON CONFLICT DO NOTHING RETURNING revision INTO new_rev;
  ELSIF p_expected = 'stream_exists' THEN
    UPDATE es_streams SET revision = revision + n WHERE stream_name = p_stream RETURNING revision INTO new_rev;
  ELSE
    UPDATE es_streams SET revision = revision + n
    WHERE stream_name = p_stream AND revision = p_expected::bigint
    RETURNING revision INTO new_rev;
  END IF;

  IF new_rev IS NULL THEN
    SELECT revision INTO actual FROM es_streams WHERE stream_name = p_stream;
    RAISE EXCEPTION 'wrong_expected_revision' USING DETAIL = coalesce(actual::text, 'none');
  END IF;

  WITH inserted AS (
    INSERT INTO es_events (stream_name, stream_revision, event_id, event_type, data, metadata)
    SELECT p_stream, new_rev - n + t.ord, (t.e->>'id')::uuid, t.e->>'type', t.e->'data', t.e->'metadata'
    FROM jsonb_array_elements(p_events) WITH ORDINALITY AS t(e, ord)
    ORDER BY t.ord
    RETURNING global_position
  )
  SELECT max(global_position) INTO last_pos FROM inserted;

  RETURN QUERY SELECT new_rev, pg_current_xact_id(), last_pos;
END
$fn$;
`;

const SELECT_EVENT = `SELECT global_position, transaction_id::text AS tx, stream_name, stream_revision, event_id, event_type, data, metadata FROM es_events`;

interface EventRow {
  global_position: string | bigint;
  tx: string;
  stream_name: string;
  stream_revision: string | bigint;
  event_id: string;
  event_type: string;
  data: unknown;
  metadata: RecordedEvent['metadata'];
}

const toEvent = (row: EventRow): RecordedEvent => ({
  id: row.event_id,
  type: row.event_type,
  stream: row.stream_name,
  revision: BigInt(row.stream_revision),
  position: { commit: BigInt(row.tx), prepare: BigInt(row.global_position) },
  data: row.data,
  metadata: row.metadata,
});

export interface PostgresEventStoreOptions {
  /** Largest batch a catch-up read or a subscription fetches at once. */
  batchSize?: number;
  /** How long a live subscription sleeps without a NOTIFY before it looks anyway. */
  idlePollMs?: number;
}

export class PostgresEventStore implements EventStore {
  private notifyQueued = false;
  private notifyInFlight: Promise<void> = Promise.resolve();
  private readonly batchSize: number;
  private readonly idlePollMs: number;

  private constructor(
    private readonly sql: Sql,
    options: PostgresEventStoreOptions,
  ) {
    this.batchSize = options.batchSize ?? 2_000;
    this.idlePollMs = options.idlePollMs ?? 1_000;
  }

  /** Creates the tables and the append function if they are missing (safe to run from several processes). */
  static async open(sql: Sql, options: PostgresEventStoreOptions = {}): Promise<PostgresEventStore> {
    await sql.transaction(async (tx) => {
      await tx.query(`SELECT pg_advisory_xact_lock(7281946)`);
      await tx.exec(SCHEMA_SQL);
    });
    return new PostgresEventStore(sql, options);
  }

  async append(
    stream: string,
    events: readonly NewEvent[],
    expected: ExpectedRevision,
  ): Promise<AppendResult> {
    if (events.length === 0) throw new Error('append needs at least one event');
    const timestamp = new Date().toISOString();
    const batch = events.map((e) => ({
      id: e.id ?? randomUUID(),
      type: e.type,
      data: e.data,
      metadata: { ...e.metadata, timestamp: e.metadata?.timestamp ?? timestamp },
    }));
    let rows: {
      next_revision: string | bigint;
      commit_position: string;
      prepare_position: string | bigint;
    }[];
    try {
      rows = await this.sql.query(
        `SELECT next_revision, commit_position::text, prepare_position FROM es_append($1, $2, $3::jsonb)`,
        [stream, String(expected), JSON.stringify(batch)],
      );
    } catch (err) {
      const e = err as { message?: string; detail?: string };
      if (e.message === 'wrong_expected_revision') {
        throw new WrongExpectedRevision(
          stream,
          expected,
          e.detail === 'none' || e.detail === undefined ? undefined : BigInt(e.detail),
        );
      }
      throw err;
    }
    const row = rows[0]!;
    this.notifySubscribers();
    return {
      nextRevision: BigInt(row.next_revision),
      position: { commit: BigInt(row.commit_position), prepare: BigInt(row.prepare_position) },
    };
  }

  async readStream(
    stream: string,
    options: { fromRevision?: bigint; maxCount?: number } = {},
  ): Promise<RecordedEvent[]> {
    const rows = await this.sql.query<EventRow>(
      `${SELECT_EVENT} WHERE stream_name = $1 AND stream_revision >= $2 ORDER BY stream_revision LIMIT $3`,
      [stream, String(options.fromRevision ?? 0n), options.maxCount ?? 1_000_000_000],
    );
    return rows.map(toEvent);
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
    );
    return rows.map(toEvent);
  }

  subscribeToAll(options: SubscribeOptions): Subscription {
    let stopped = false;
    let wake: (() => void) | undefined;
    let dirty = true;
    const poke = () => {
      dirty = true;
      wake?.();
    };
    const sleep = () =>
      new Promise<void>((resolve) => {
        if (dirty || stopped) return resolve();
        const timer = setTimeout(resolve, this.idlePollMs);
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
        while (!stopped) {
          dirty = false;
          const batch = await this.readAll({ from: position, maxCount: this.batchSize });
          for (const event of batch) {
            if (stopped) return;
            await options.onEvent(event);
            position = event.position;
          }
          if (batch.length === this.batchSize) continue;
          if (!caughtUp) {
            caughtUp = true;
            options.onCaughtUp?.();
          }
          await sleep();
        }
      } finally {
        await unlisten();
      }
    };
    const done = run();
    done.catch(() => undefined);
    return {
      done,
      stop: async () => {
        stopped = true;
        wake?.();
        await done.catch(() => undefined);
      },
    };
  }

  /**
   * Tells every subscriber (in every process) that the log moved. Coalesced: at most one NOTIFY in
   * flight and one queued per process, so a burst of appends costs a few notifications, and it is
   * sent after the append committed, outside its transaction.
   */
  private notifySubscribers(): void {
    if (this.notifyQueued) return;
    this.notifyQueued = true;
    this.notifyInFlight = this.notifyInFlight.then(async () => {
      this.notifyQueued = false;
      await this.sql.query(`SELECT pg_notify('${CHANNEL}', '')`).catch(() => undefined);
    });
  }

  async close(): Promise<void> {
    await this.notifyInFlight;
    await this.sql.close();
  }
}
