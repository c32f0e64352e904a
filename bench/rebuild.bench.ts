/**
 * Projection rebuild (`npm run replay`'s work) on a log of 1,000,000 events in PostgreSQL, into Redis,
 * beside the raw catch-up read of the same log in the same run.
 *
 * The log is real traffic multiplied: the embedded service registers agents and confirms transfers
 * between them; those events are then appended again and again with every agent and intent id
 * renamed, so the rebuilt models hold many agents with full histories and windows.
 */
import { randomBytes } from 'node:crypto';
import Redis from 'ioredis';
import bs58 from 'bs58';
import { type EventStore, type NewEvent, type RecordedEvent } from '@tokenops/shared';
import { PostgresEventStore, RedisReadModelStore, localFixtures, serverSql } from '@tokenops/shared/adapters';
import { createLogger } from '@tokenops/shared/process';
import { replay } from '@tokenops/projections';
import { CHAIN_SEED, startEmbedded } from '@tokenops/api/embedded';
import { Client } from '@tokenops/testing/harness';
import { DATABASE_URL, REDIS_URL, dropSchema, uniqueName } from '@tokenops/testing/servers';
import { measure, report } from './harness';
import { fundedAgents, loadHere as load, transferRequest } from './load';

/** Real events: agents registered, funded, and transferring to each other. */
export async function template(): Promise<RecordedEvent[]> {
  const service = await startEmbedded({
    port: 0,
    keyEncryptionKey: randomBytes(32),
    jwtSecret: randomBytes(32),
    logger: createLogger('silent'),
    rateLimitPerMinute: 100_000_000,
  });
  const agents = await fundedAgents(new Client(service.url), 8);
  const next = transferRequest(agents, 'template');
  await load({
    url: service.url,
    connections: 8,
    amount: 400,
    requests: [{ setupRequest: (r) => ({ ...r, ...next() }) }],
  });
  const events = await service.ctx.store.readAll({ maxCount: 1_000_000 });
  await service.close();
  return events;
}

/**
 * The template's events with every agent and intent id (and the streams named by them) renamed for
 * copy `k`; an id in `fixed` becomes its value in every copy instead (all copies in one group).
 */
export function copier(events: RecordedEvent[], fixed: ReadonlyMap<string, string> = new Map()) {
  const ids = new Set<string>();
  for (const e of events) {
    const d = e.data as Record<string, unknown>;
    for (const field of ['agent_id', 'intent_id', 'group_id'])
      if (typeof d[field] === 'string') ids.add(d[field] as string);
  }
  const pattern = new RegExp([...ids].map((id) => id.replace(/[-]/g, '\\-')).join('|'), 'g');
  const texts = events.map((e) => ({ stream: e.stream, type: e.type, data: JSON.stringify(e.data) }));
  return (k: number): { stream: string; events: NewEvent[] }[] => {
    const rename = (text: string) =>
      text.replace(
        pattern,
        (id) =>
          fixed.get(id) ??
          (id.length >= 32 && !id.includes('-')
            ? bs58.encode(Buffer.from(`${k}:${id}`).subarray(0, 32))
            : `${id}~${k}`),
      );
    const byStream = new Map<string, NewEvent[]>();
    for (const t of texts) {
      const stream = rename(t.stream);
      let list = byStream.get(stream);
      if (!list) byStream.set(stream, (list = []));
      list.push({ type: t.type, data: JSON.parse(rename(t.data)) as unknown });
    }
    return [...byStream].map(([stream, evs]) => ({ stream, events: evs }));
  };
}

/** Appends copies of the template until the log holds `target` events, 16 at a time; the number of copies. */
export async function writeCopies(
  store: EventStore,
  copy: ReturnType<typeof copier>,
  templateSize: number,
  target: number,
): Promise<number> {
  const copies = Math.ceil(target / templateSize);
  await measure(`writing the log (${copies} copies of ${templateSize} events)`, copies, 16, async (_w, k) => {
    for (const { stream, events } of copy(k)) await store.append(stream, events, 'any');
    return 1;
  });
  return copies;
}

/** The baseline of the log's readers: the whole log read in pages, doing nothing with it; events/s. */
export async function rawCatchUp(store: EventStore, pageSize: number): Promise<number> {
  console.log('  raw catch-up read of the whole log…');
  let read = 0;
  const started = Date.now();
  for (let from: RecordedEvent['position'] | undefined; ;) {
    const batch = await store.readAll({ ...(from && { from }), maxCount: pageSize });
    read += batch.length;
    if (batch.length < pageSize) break;
    from = batch[batch.length - 1]!.position;
  }
  return read / ((Date.now() - started) / 1000);
}

export async function rebuildBench(): Promise<string> {
  const scale = Number(process.env.BENCH_SCALE ?? 1);
  const target = Math.round(1_000_000 * scale);
  const schema = uniqueName('rebuild');
  const store = await PostgresEventStore.open(
    await serverSql({ connectionString: DATABASE_URL, schema, max: 20 }),
  );
  const redis = new Redis(REDIS_URL);
  const prefix = uniqueName('rebuild');
  try {
    const events = await template();
    const copy = copier(events);
    const copies = await writeCopies(store, copy, events.length, target);
    const total = copies * events.length;

    const raw = await rawCatchUp(store, 5_000);
    console.log('  rebuilding (replay)…');
    const tokens = localFixtures(CHAIN_SEED).mints;
    const started = Date.now();
    const phases: Record<string, number> = {};
    const result = await replay({
      store,
      redis,
      prefix,
      tokens,
      onProgress: (p) => (phases[p.phase] ??= Date.now()),
    });
    const end = Date.now();
    const took = (from: string, to?: string) =>
      ((((to ? phases[to] : end) ?? end) - (phases[from] ?? end)) / 1000).toFixed(1);
    console.log(
      `  phases: build ${took('build', 'load')} s, load ${took('load', 'catch-up')} s, catch-up and switch ${took('catch-up', 'verify')} s, check ${took('verify')} s`,
    );
    const rebuildSeconds = (Date.now() - started) / 1000;
    return report(`Projection rebuild (${total.toLocaleString('en-US')} events, PostgreSQL log into Redis)`, [
      {
        name: `rebuild: log to fresh models in Redis, switched over (${result.events} events)`,
        value: result.events / (result.buildMs / 1000),
        unit: 'events/s',
        baseline: { name: 'raw catch-up read of the same log', value: raw },
        target: '>= 50,000 events/s and >= 0.5x raw',
      },
      { name: 'rebuild wall time, check included', value: rebuildSeconds, unit: 's' },
    ]);
  } finally {
    await new RedisReadModelStore(redis, prefix).clear(); // every key under the prefix
    redis.disconnect();
    await store.close();
    await dropSchema(schema);
  }
}
