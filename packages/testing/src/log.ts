/**
 * The event log as a test reads it. The PostgreSQL store reads its log only below the oldest
 * transaction still open on the whole database server (gap-free order, postgres.ts), and the suites
 * share the server: another suite's open transaction may hold a read back for a moment. A test that
 * reads what it has just caused asks `settled` first.
 */
import { logPages, type EventStore, type RecordedEvent } from '@tokenops/shared';
import type { Sql } from '@tokenops/shared/adapters';
import { until } from './time';

/**
 * Waits (at most `ms`) until a read of the log sees everything that committed before the call: until
 * the oldest transaction still open is younger than every transaction that had ended at the call (the
 * snapshot's xmax then, the one past the newest ended). At once when nothing else is open (PGlite).
 */
export async function settled(sql: Sql, ms = 10_000): Promise<void> {
  const [now] = await sql.query<{ xmax: string }>(
    `SELECT pg_snapshot_xmax(pg_current_snapshot())::text AS xmax`,
  );
  await until(async () => {
    const [check] = await sql.query<{ ended: boolean }>(
      `SELECT pg_snapshot_xmin(pg_current_snapshot()) >= $1::xid8 AS ended`,
      [now!.xmax],
    );
    return check!.ended;
  }, ms);
}

/** The whole log, a page at a time, with everything that committed before the call (`settled`). */
export async function wholeLog(service: { sql: Sql; ctx: { store: EventStore } }): Promise<RecordedEvent[]> {
  await settled(service.sql);
  const all: RecordedEvent[] = [];
  for await (const page of logPages(service.ctx.store, { pageSize: 5_000 })) all.push(...page);
  return all;
}
