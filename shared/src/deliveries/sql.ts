/**
 * The delivery store on SQL: PostgreSQL (the server topology, beside the event log) or PGlite (the
 * embedded default, in the same data folder). Four tables, created when missing.
 */
import type { LogPosition } from '../event-store/port';
import type { Sql } from '../sql/sql';
import {
  RelayFenced,
  type Attempt,
  type AttemptRecord,
  type Delivery,
  type DeliveryStatus,
  type DeliveryStore,
  type NewDelivery,
  type RelayCommit,
  type WebhookSubscription,
} from './port';

const SCHEMA_SQL = `
CREATE TABLE IF NOT EXISTS webhook_relay (
  name text PRIMARY KEY,
  commit_position bigint NOT NULL,
  prepare_position bigint NOT NULL
);
CREATE TABLE IF NOT EXISTS webhook_subscriptions (
  webhook_id text PRIMARY KEY,
  agent_id text,
  group_id text NOT NULL,
  doc jsonb NOT NULL
);
CREATE INDEX IF NOT EXISTS webhook_subscriptions_group ON webhook_subscriptions (group_id);
CREATE TABLE IF NOT EXISTS webhook_deliveries (
  webhook_id text NOT NULL,
  event_id text NOT NULL,
  event text NOT NULL,
  payload text NOT NULL,
  status text NOT NULL,
  attempts integer NOT NULL DEFAULT 0,
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL,
  next_attempt_at bigint,
  PRIMARY KEY (webhook_id, event_id)
);
CREATE INDEX IF NOT EXISTS webhook_deliveries_created ON webhook_deliveries (webhook_id, created_at);
CREATE INDEX IF NOT EXISTS webhook_deliveries_due ON webhook_deliveries (created_at)
  WHERE status = 'pending' OR (status = 'failed' AND next_attempt_at IS NOT NULL);
CREATE TABLE IF NOT EXISTS webhook_attempts (
  webhook_id text NOT NULL,
  event_id text NOT NULL,
  attempt integer NOT NULL,
  at bigint NOT NULL,
  outcome text NOT NULL,
  status_code integer,
  latency_ms integer NOT NULL,
  error text
);
CREATE INDEX IF NOT EXISTS webhook_attempts_delivery ON webhook_attempts (webhook_id, event_id);

-- One relay batch in one statement, so one round trip (and, on PGlite, no transaction held open
-- between the relay's statements while other work waits for the one connection). The checkpoint
-- moves from where the relay read it, else SQLSTATE WR409 (another relay moved it: its lease is
-- lost) and nothing of the batch lands; the subscriptions are written in order (the last of one id
-- wins); the deliveries are inserted, those new answered by their keys alone ('new': the relay has
-- the rest); the redeliveries set pending, each row answered whole with the request that asked
-- ('again').
CREATE OR REPLACE FUNCTION webhook_relay_commit(p jsonb)
RETURNS TABLE (kind text, webhook_id text, event_id text, event text, payload text, created_at bigint,
  attempts integer, request_id text)
LANGUAGE plpgsql AS $fn$
#variable_conflict use_column
DECLARE
  moved text;
  x jsonb;
BEGIN
  IF jsonb_typeof(p->'from') = 'object' THEN
    UPDATE webhook_relay SET commit_position = (p->'to'->>'c')::bigint, prepare_position = (p->'to'->>'p')::bigint
    WHERE name = p->>'name' AND commit_position = (p->'from'->>'c')::bigint
      AND prepare_position = (p->'from'->>'p')::bigint
    RETURNING name INTO moved;
  ELSE
    INSERT INTO webhook_relay (name, commit_position, prepare_position)
    VALUES (p->>'name', (p->'to'->>'c')::bigint, (p->'to'->>'p')::bigint)
    ON CONFLICT (name) DO NOTHING RETURNING name INTO moved;
  END IF;
  IF moved IS NULL THEN
    RAISE EXCEPTION 'another relay moved the checkpoint' USING ERRCODE = 'WR409';
  END IF;
  FOR x IN SELECT value FROM jsonb_array_elements(p->'subscriptions') LOOP
    INSERT INTO webhook_subscriptions (webhook_id, agent_id, group_id, doc)
    VALUES (x->>'webhook_id', x->>'agent_id', x->>'group_id', x)
    ON CONFLICT (webhook_id) DO UPDATE SET doc = EXCLUDED.doc;
  END LOOP;
  RETURN QUERY
    INSERT INTO webhook_deliveries (webhook_id, event_id, event, payload, status, created_at, updated_at)
    SELECT d->>'webhook_id', d->>'event_id', d->>'event', d->>'payload', 'pending',
           (d->>'created_at')::bigint, (d->>'created_at')::bigint
    FROM jsonb_array_elements(p->'deliveries') AS d
    ON CONFLICT (webhook_id, event_id) DO NOTHING
    RETURNING 'new'::text, webhook_id, event_id, NULL::text, NULL::text, NULL::bigint, NULL::integer, NULL::text;
  FOR x IN SELECT value FROM jsonb_array_elements(p->'redeliver') LOOP
    RETURN QUERY
      UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = NULL
      WHERE webhook_id = x->>'webhook_id'
        AND (x->'event_ids' IS NULL OR event_id IN (SELECT jsonb_array_elements_text(x->'event_ids')))
        AND (x->'since' IS NULL OR created_at >= (x->>'since')::bigint)
      RETURNING 'again'::text, webhook_id, event_id, event, payload, created_at, attempts, x->>'request_id';
  END LOOP;
END
$fn$;
`;

/** The SQLSTATE webhook_relay_commit raises when the checkpoint moved under the relay. */
const RELAY_MOVED = 'WR409';

const RELAY = 'webhooks';

interface DeliveryRow {
  webhook_id: string;
  event_id: string;
  event: string;
  payload: string;
  status: DeliveryStatus;
  attempts: number;
  created_at: string | number;
  updated_at: string | number;
  next_attempt_at: string | number | null;
}

/** What webhook_relay_commit answers: a delivery to send, new or sent again at `request_id`'s asking. */
type RelayRow = DeliveryFields & { kind: 'new' | 'again'; request_id: string | null };

const num = (v: string | number | bigint): number => Number(v);
type DeliveryFields = Pick<
  DeliveryRow,
  'webhook_id' | 'event_id' | 'event' | 'payload' | 'created_at' | 'attempts'
> & { next_attempt_at?: DeliveryRow['next_attempt_at'] };
const newDeliveryOf = (r: DeliveryFields): NewDelivery => ({
  webhook_id: r.webhook_id,
  event_id: r.event_id,
  event: r.event,
  payload: r.payload,
  created_at: num(r.created_at),
  attempts: r.attempts,
  ...(r.next_attempt_at !== undefined &&
    r.next_attempt_at !== null && { next_attempt_at: num(r.next_attempt_at) }),
});
const docOf = (v: unknown): WebhookSubscription =>
  (typeof v === 'string' ? JSON.parse(v) : v) as WebhookSubscription;

export class SqlDeliveryStore implements DeliveryStore {
  private constructor(
    private readonly sql: Sql,
    /** Whether close() closes the connection (false when it is shared with the event store). */
    private readonly owned: boolean,
  ) {}

  static async open(sql: Sql, options: { owned?: boolean } = {}): Promise<SqlDeliveryStore> {
    await sql.transaction(async (tx) => {
      await tx.query(`SELECT pg_advisory_xact_lock(7281947)`);
      await tx.exec(SCHEMA_SQL);
    });
    return new SqlDeliveryStore(sql, options.owned ?? false);
  }

  async relayCheckpoint(): Promise<LogPosition | undefined> {
    const [row] = await this.sql.query<{ c: string; p: string }>(
      `SELECT commit_position::text AS c, prepare_position::text AS p FROM webhook_relay WHERE name = $1`,
      [RELAY],
    );
    return row ? { commit: BigInt(row.c), prepare: BigInt(row.p) } : undefined;
  }

  async commitRelay(c: RelayCommit): Promise<NewDelivery[]> {
    const at = (p: LogPosition) => ({ c: String(p.commit), p: String(p.prepare) });
    const batch = {
      name: RELAY,
      ...(c.from && { from: at(c.from) }),
      to: at(c.to),
      subscriptions: c.subscriptions,
      deliveries: c.deliveries,
      redeliver: c.redeliver,
    };
    const rows = await this.sql
      .query<RelayRow>(
        `SELECT kind, webhook_id, event_id, event, payload, created_at, attempts, request_id
         FROM webhook_relay_commit($1::jsonb)`,
        [JSON.stringify(batch)],
        'webhook_relay_commit',
      )
      .catch((err: unknown) => {
        throw (err as { code?: unknown }).code === RELAY_MOVED ? new RelayFenced() : err;
      });
    // The new ones as the relay gave them (in its order); those sent again as stored, attempts counted on.
    const inserted = new Set(
      rows.filter((r) => r.kind === 'new').map((r) => `${r.webhook_id} ${r.event_id}`),
    );
    return [
      ...c.deliveries.filter((d) => inserted.has(`${d.webhook_id} ${d.event_id}`)),
      ...rows
        .filter((r) => r.kind === 'again')
        .map((r) => ({ ...newDeliveryOf(r), redelivery: r.request_id! })),
    ];
  }

  async subscription(webhookId: string): Promise<WebhookSubscription | undefined> {
    const [row] = await this.sql.query<{ doc: unknown }>(
      `SELECT doc FROM webhook_subscriptions WHERE webhook_id = $1`,
      [webhookId],
      'webhook_subscription',
    );
    return row && docOf(row.doc);
  }

  async subscriptions(owner: { groupId?: string; agentId?: string }): Promise<WebhookSubscription[]> {
    const rows = await this.sql.query<{ doc: unknown }>(
      `SELECT doc FROM webhook_subscriptions
       WHERE ($1::text IS NULL OR group_id = $1) AND ($2::text IS NULL OR agent_id = $2)
         AND doc->>'status' <> 'deleted'
       ORDER BY (doc->>'created_at')::bigint, webhook_id`,
      [owner.groupId ?? null, owner.agentId ?? null],
    );
    return rows.map((r) => docOf(r.doc));
  }

  async activeSubscriptions(): Promise<WebhookSubscription[]> {
    const rows = await this.sql.query<{ doc: unknown }>(
      `SELECT doc FROM webhook_subscriptions WHERE doc->>'status' = 'active'`,
    );
    return rows.map((r) => docOf(r.doc));
  }

  async disable(webhookId: string, reason: string): Promise<void> {
    await this.sql.query(
      `UPDATE webhook_subscriptions
       SET doc = doc || jsonb_build_object('status', 'disabled', 'status_reason', $2::text)
       WHERE webhook_id = $1 AND doc->>'status' = 'active'`,
      [webhookId, reason],
    );
  }

  async recordAttempts(items: readonly AttemptRecord[]): Promise<void> {
    if (items.length === 0) return;
    const rows = items.map(({ attempt: a, next }) => ({
      w: a.webhook_id,
      e: a.event_id,
      n: a.attempt,
      at: a.at,
      o: a.outcome,
      c: a.status_code ?? null,
      l: Math.round(a.latency_ms),
      err: a.error ?? null,
      s: next.status,
      due: next.next_attempt_at ?? null,
    }));
    await this.sql.query(
      `WITH items AS (
         SELECT * FROM jsonb_to_recordset($1::jsonb)
           AS x(w text, e text, n integer, at bigint, o text, c integer, l integer, err text, s text, due bigint)
       ),
       logged AS (
         INSERT INTO webhook_attempts (webhook_id, event_id, attempt, at, outcome, status_code, latency_ms, error)
         SELECT w, e, n, at, o, c, l, err FROM items
       )
       UPDATE webhook_deliveries d
       SET status = i.s, attempts = GREATEST(d.attempts, i.n), updated_at = i.at, next_attempt_at = i.due
       FROM (SELECT DISTINCT ON (w, e) * FROM items ORDER BY w, e, n DESC, at DESC) i
       WHERE d.webhook_id = i.w AND d.event_id = i.e`,
      [JSON.stringify(rows)],
      'webhook_record_attempts',
    );
  }

  async deliveries(webhookId: string, options: { limit: number; before?: number }): Promise<Delivery[]> {
    const rows = await this.sql.query<DeliveryRow>(
      `SELECT * FROM webhook_deliveries
       WHERE webhook_id = $1 AND ($2::bigint IS NULL OR created_at < $2)
       ORDER BY created_at DESC, event_id DESC LIMIT $3`,
      [webhookId, options.before ?? null, options.limit],
    );
    return this.withAttempts(rows);
  }

  async deliveriesOf(webhookIds: readonly string[], eventIds: readonly string[]): Promise<Delivery[]> {
    if (webhookIds.length === 0 || eventIds.length === 0) return [];
    const rows = await this.sql.query<DeliveryRow>(
      `SELECT * FROM webhook_deliveries
       WHERE webhook_id = ANY($1::text[]) AND event_id = ANY($2::text[])
       ORDER BY created_at, webhook_id, event_id`,
      [[...webhookIds], [...eventIds]],
    );
    return this.withAttempts(rows);
  }

  /** The deliveries of these rows with their attempts, oldest first. */
  private async withAttempts(rows: DeliveryRow[]): Promise<Delivery[]> {
    if (rows.length === 0) return [];
    const attempts = await this.sql.query<{
      webhook_id: string;
      event_id: string;
      attempt: number;
      at: string;
      outcome: Attempt['outcome'];
      status_code: number | null;
      latency_ms: number;
      error: string | null;
    }>(
      `SELECT webhook_id, event_id, attempt, at, outcome, status_code, latency_ms, error FROM webhook_attempts
       WHERE webhook_id = ANY($1::text[]) AND event_id = ANY($2::text[]) ORDER BY at, attempt`,
      [[...new Set(rows.map((r) => r.webhook_id))], rows.map((r) => r.event_id)],
    );
    return rows.map((r) => ({
      webhook_id: r.webhook_id,
      event_id: r.event_id,
      event: r.event,
      payload: r.payload,
      status: r.status,
      attempts: r.attempts,
      created_at: num(r.created_at),
      updated_at: num(r.updated_at),
      ...(r.next_attempt_at !== null && { next_attempt_at: num(r.next_attempt_at) }),
      log: attempts
        .filter((a) => a.event_id === r.event_id && a.webhook_id === r.webhook_id)
        .map((a) => ({
          attempt: a.attempt,
          at: num(a.at),
          outcome: a.outcome,
          ...(a.status_code !== null && { status_code: a.status_code }),
          latency_ms: a.latency_ms,
          ...(a.error !== null && { error: a.error }),
        })),
    }));
  }

  async pending(limit: number): Promise<NewDelivery[]> {
    const rows = await this.sql.query<DeliveryRow>(
      `SELECT * FROM webhook_deliveries
       WHERE status = 'pending' OR (status = 'failed' AND next_attempt_at IS NOT NULL)
       ORDER BY created_at LIMIT $1`,
      [limit],
    );
    return rows.map(newDeliveryOf);
  }

  async close(): Promise<void> {
    if (this.owned) await this.sql.close();
  }
}
