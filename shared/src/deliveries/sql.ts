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
`;

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

const num = (v: string | number | bigint): number => Number(v);
const newDeliveryOf = (r: DeliveryRow): NewDelivery => ({
  webhook_id: r.webhook_id,
  event_id: r.event_id,
  event: r.event,
  payload: r.payload,
  created_at: num(r.created_at),
  attempts: r.attempts,
  ...(r.next_attempt_at !== null && { next_attempt_at: num(r.next_attempt_at) }),
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
    return this.sql.transaction(async (tx) => {
      const moved = c.from
        ? await tx.query(
            `UPDATE webhook_relay SET commit_position = $2, prepare_position = $3
             WHERE name = $1 AND commit_position = $4 AND prepare_position = $5 RETURNING name`,
            [RELAY, String(c.to.commit), String(c.to.prepare), String(c.from.commit), String(c.from.prepare)],
          )
        : await tx.query(
            `INSERT INTO webhook_relay (name, commit_position, prepare_position) VALUES ($1, $2, $3)
             ON CONFLICT (name) DO NOTHING RETURNING name`,
            [RELAY, String(c.to.commit), String(c.to.prepare)],
          );
      if (moved.length === 0) throw new RelayFenced();
      for (const s of c.subscriptions) {
        await tx.query(
          `INSERT INTO webhook_subscriptions (webhook_id, agent_id, group_id, doc) VALUES ($1, $2, $3, $4::jsonb)
           ON CONFLICT (webhook_id) DO UPDATE SET doc = EXCLUDED.doc`,
          [s.webhook_id, s.agent_id ?? null, s.group_id, JSON.stringify(s)],
        );
      }
      const added: NewDelivery[] = [];
      if (c.deliveries.length > 0) {
        const rows = await tx.query<{ webhook_id: string; event_id: string }>(
          `INSERT INTO webhook_deliveries (webhook_id, event_id, event, payload, status, created_at, updated_at)
           SELECT d->>'webhook_id', d->>'event_id', d->>'event', d->>'payload', 'pending',
                  (d->>'created_at')::bigint, (d->>'created_at')::bigint
           FROM jsonb_array_elements($1::jsonb) AS d
           ON CONFLICT (webhook_id, event_id) DO NOTHING
           RETURNING webhook_id, event_id`,
          [JSON.stringify(c.deliveries)],
        );
        const inserted = new Set(rows.map((r) => `${r.webhook_id} ${r.event_id}`));
        for (const d of c.deliveries) if (inserted.has(`${d.webhook_id} ${d.event_id}`)) added.push(d);
      }
      for (const r of c.redeliver) {
        const rows = await tx.query<DeliveryRow>(
          `UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = NULL
           WHERE webhook_id = $1
             AND ($2::text[] IS NULL OR event_id = ANY($2::text[]))
             AND ($3::bigint IS NULL OR created_at >= $3)
           RETURNING *`,
          [r.webhook_id, r.event_ids ?? null, r.since ?? null],
        );
        for (const row of rows) added.push({ ...newDeliveryOf(row), redelivery: r.request_id });
      }
      return added;
    });
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
