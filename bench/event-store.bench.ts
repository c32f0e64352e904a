/**
 * Event store appends and catch-up reads on the PostgreSQL server, beside Emmett 0.42
 * (@event-driven-io/emmett-postgresql) on the same database, in the same run.
 */
import { getPostgreSQLEventStore } from '@event-driven-io/emmett-postgresql';
import { randomUUID } from 'node:crypto';
import { Pool } from 'pg';
import { PostgresEventStore } from '@tokenops/shared/adapters';
import { LOG_START } from '@tokenops/shared';
import { serverSql } from '@tokenops/shared/adapters';
import { measure, report, type Figure } from './harness';

const SERVER = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const DB = 'tokenops_bench';
const scale = Number(process.env.BENCH_SCALE ?? 1);

async function freshDatabase(): Promise<string> {
  const admin = new Pool({ connectionString: SERVER, max: 1 });
  await admin.query(`DROP DATABASE IF EXISTS ${DB} WITH (FORCE)`);
  await admin.query(`CREATE DATABASE ${DB}`);
  await admin.end();
  const url = new URL(SERVER);
  url.pathname = `/${DB}`;
  return url.toString();
}

const payload = (i: number) => ({
  intent_id: randomUUID(),
  amount: `${i}.5`,
  mint: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v',
  at: Date.now(),
});

export async function eventStoreBench(): Promise<string> {
  const url = await freshDatabase();
  const ours = await PostgresEventStore.open(
    await serverSql({ connectionString: url, schema: 'es', max: 20 }),
  );
  const emmett = getPostgreSQLEventStore(url, { connectionOptions: {} });
  const figures: Figure[] = [];

  // Warm both (schema creation, JIT, connection pools).
  await Promise.all(
    Array.from({ length: 16 }, (_, w) => ours.append(`warm-${w}`, [{ type: 'warm', data: {} }], 'any')),
  );
  await Promise.all(
    Array.from({ length: 16 }, (_, w) => emmett.appendToStream(`warm-${w}`, [{ type: 'warm', data: {} }])),
  );

  const run = async (label: string, writers: number, appends: number, batch: number) => {
    const oursRevision = new Map<number, bigint>();
    const emmettVersion = new Map<number, bigint>();
    const events = (i: number) =>
      Array.from({ length: batch }, (_, k) => ({ type: 'intent.accepted', data: payload(i * batch + k) }));
    const stream = (w: number, tag: string) => `${tag}-${label}-${w}`;
    const e = await measure(`Emmett 0.42: ${label}`, appends, writers, async (w, i) => {
      const expected = emmettVersion.get(w);
      const r = await emmett.appendToStream(
        stream(w, 'emmett'),
        events(i).map((x) => ({ type: x.type, data: x.data })),
        expected === undefined ? {} : { expectedStreamVersion: expected },
      );
      emmettVersion.set(w, r.nextExpectedStreamVersion);
      return batch;
    });
    const o = await measure(`ours: ${label}`, appends, writers, async (w, i) => {
      const r = await ours.append(stream(w, 'ours'), events(i), oursRevision.get(w) ?? 'no_stream');
      oursRevision.set(w, r.nextRevision);
      return batch;
    });
    return { o, e };
  };

  const one = await run('1 writer, single-event appends', 1, 1500 * scale, 1);
  figures.push({
    name: 'appends/s, 1 writer',
    value: one.o,
    unit: 'events/s',
    baseline: { name: 'Emmett', value: one.e },
  });
  const sixteen = await run('16 writers, single-event appends', 16, 6000 * scale, 1);
  figures.push({
    name: 'appends/s, 16 concurrent writers',
    value: sixteen.o,
    unit: 'events/s',
    baseline: { name: 'Emmett', value: sixteen.e },
    target: '>= 2x Emmett',
  });
  const batches = await run('16 writers, 10-event batches', 16, 1500 * scale, 10);
  figures.push({
    name: 'events/s in 10-event batches, 16 writers',
    value: batches.o,
    unit: 'events/s',
    baseline: { name: 'Emmett', value: batches.e },
  });

  // Catch-up: grow the log, then read it whole through the gap-free reader, beside one raw
  // ordered scan of the same rows (the floor for reading them at all).
  await measure('seeding the log (100-event batches)', 2000 * scale, 16, async (w, i) => {
    await ours.append(
      `seed-${w}-${i}`,
      Array.from({ length: 100 }, (_, k) => ({ type: 'intent.accepted', data: payload(k) })),
      'no_stream',
    );
    return 100;
  });
  const total = Number(
    (await new Pool({ connectionString: url, max: 1 }).query(`SELECT count(*) AS n FROM es.es_events`))
      .rows[0].n,
  );
  let position = LOG_START;
  const readStart = process.hrtime.bigint();
  let read = 0;
  for (;;) {
    const batch = await ours.readAll({ from: position, maxCount: 5_000 });
    if (batch.length === 0) break;
    read += batch.length;
    position = batch[batch.length - 1]!.position;
  }
  const readRate = read / (Number(process.hrtime.bigint() - readStart) / 1e9);
  const raw = new Pool({ connectionString: url, max: 1 });
  const rawStart = process.hrtime.bigint();
  let rawRead = 0;
  let last = ['0', '0'];
  for (;;) {
    // The same keyset walk of the log's primary key, without the in-flight filter or any mapping.
    const { rows } = await raw.query(
      `SELECT transaction_id::text AS tx, global_position, stream_name, event_type, data, metadata FROM es.es_events
       WHERE (transaction_id, global_position) > ($1::text::xid8, $2::bigint) ORDER BY transaction_id, global_position LIMIT 5000`,
      last,
    );
    if (rows.length === 0) break;
    rawRead += rows.length;
    last = [rows[rows.length - 1].tx, String(rows[rows.length - 1].global_position)];
  }
  const rawRate = rawRead / (Number(process.hrtime.bigint() - rawStart) / 1e9);
  await raw.end();
  console.log(`  read ${read} of ${total} events`);
  figures.push({
    name: `catch-up read of the whole log (${read.toLocaleString('en-US')} events)`,
    value: readRate,
    unit: 'events/s',
    baseline: { name: 'raw keyset scan', value: rawRate },
    target: '>= 50,000 events/s',
  });

  await ours.close();
  await emmett.close();
  return report('Event store (PostgreSQL 15 server)', figures);
}
