import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { embeddedSql, serverSql, type Sql } from '../sql/sql';
import { DATABASE_URL, dropSchema, uniqueName } from '@tokenops/testing/servers';
import { databaseTemplate } from '@tokenops/testing/database-template';
import { eventStoreContract, waitFor } from './contract';
import { PostgresEventStore } from './postgres';

const schemas: string[] = [];
afterAll(async () => {
  for (const schema of schemas) await dropSchema(schema);
});

eventStoreContract('PostgreSQL server', async () => {
  const schema = uniqueName('es');
  schemas.push(schema);
  return PostgresEventStore.open(await serverSql({ connectionString: DATABASE_URL, schema }), {
    idlePollMs: 5_000,
  });
});

// A PGlite database takes a second or more to start: the contract's stores share one (started from an
// empty cluster's files), each test on streams of its own; closing a store leaves the database to the next.
let pglite: Sql | undefined;
afterAll(async () => pglite?.close());
eventStoreContract('PGlite (embedded)', async () => {
  pglite ??= await embeddedSql(undefined, await databaseTemplate());
  return PostgresEventStore.open({ ...pglite, close: async () => undefined }, { idlePollMs: 5_000 });
});

// The embedded service's store: the only writer of its log, its subscribers fed in process (feed.ts).
eventStoreContract('PGlite, the only writer (subscribers fed in process)', async () => {
  pglite ??= await embeddedSql(undefined, await databaseTemplate());
  return PostgresEventStore.open({ ...pglite, close: async () => undefined }, { onlyWriter: true });
});

describe('PGlite in a data folder', () => {
  it('keeps streams and the log across a restart', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pglite-'));
    const first = await PostgresEventStore.open(await embeddedSql(dir));
    await first.append('agent-1', [{ type: 'agent.registered', data: { n: 1 } }], 'no_stream');
    await first.close();
    const second = await PostgresEventStore.open(await embeddedSql(dir));
    expect((await second.readStream('agent-1')).map((e) => e.data)).toEqual([{ n: 1 }]);
    expect((await second.append('agent-1', [{ type: 'x', data: {} }], 0n)).nextRevision).toBe(1n);
    expect(await second.readAll()).toHaveLength(2);
    await second.close();
  });
});

describe('the events of one correlation id (PostgreSQL server)', () => {
  it('reads them by the index, in log order, whatever their streams', async () => {
    const schema = uniqueName('es');
    schemas.push(schema);
    const store = await PostgresEventStore.open(await serverSql({ connectionString: DATABASE_URL, schema }));
    const of = (id: string, type: string) => ({ type, data: {}, metadata: { correlation_id: id } });
    await store.append('agent-a', [of('i-1', 'intent.accepted'), of('i-2', 'intent.accepted')], 'no_stream');
    await store.append('budget-b', [of('i-1', 'budget.reserved')], 'no_stream');
    await store.append(
      'agent-a',
      [{ type: 'agent.limits_changed', data: {} }, of('i-1', 'intent.confirmed')],
      1n,
    );
    const found = await store.readCorrelated('i-1');
    expect(found.map((e) => [e.stream, e.type])).toEqual([
      ['agent-a', 'intent.accepted'],
      ['budget-b', 'budget.reserved'],
      ['agent-a', 'intent.confirmed'],
    ]);
    expect(await store.readCorrelated('nothing')).toEqual([]);
    await store.close();
  });
});

describe('stream reads on a PostgreSQL server', () => {
  it('travel together when made in one turn: one statement for all of them, one alone as before', async () => {
    const schema = uniqueName('es');
    schemas.push(schema);
    const sql = await serverSql({ connectionString: DATABASE_URL, schema });
    const sent: string[] = [];
    const store = await PostgresEventStore.open({
      ...sql,
      query: (text, params, name) => {
        sent.push(name ?? text);
        return sql.query(text, params, name);
      },
    });
    await store.append('agent-1', [{ type: 'test.a', data: {} }], 'no_stream');
    await store.append('group-1', [{ type: 'test.g', data: {} }], 'no_stream');
    sent.length = 0;
    const [agent, group] = await Promise.all([store.readStream('agent-1'), store.readStream('group-1')]);
    expect([agent.map((e) => e.type), group.map((e) => e.type)]).toEqual([['test.a'], ['test.g']]);
    expect(sent).toEqual(['es_read_streams']);
    sent.length = 0;
    expect((await store.readStream('agent-1', { fromRevision: 1n })).length).toBe(0);
    expect(sent).toEqual(['es_read_stream']);
    await store.close();
  });
});

describe('the log on a PostgreSQL server', () => {
  it('is read by subscribers unless a store is told it is the only writer: other processes append too', async () => {
    const schema = uniqueName('es');
    schemas.push(schema);
    const subscriber = await PostgresEventStore.open(
      await serverSql({ connectionString: DATABASE_URL, schema }),
    );
    const other = await PostgresEventStore.open(await serverSql({ connectionString: DATABASE_URL, schema }));
    const seen: string[] = [];
    const sub = subscriber.subscribeToAll({ onEvent: (e) => void seen.push(e.type) });
    await other.append('elsewhere', [{ type: 'test.from_another_process', data: {} }], 'no_stream');
    await waitFor(() => seen.length === 1);
    expect(seen).toEqual(['test.from_another_process']);
    await sub.stop();
    await subscriber.close();
    await other.close();
  });

  it('replaces an append function of the shape before it answered what it stored', async () => {
    const schema = uniqueName('es');
    schemas.push(schema);
    const sql = await serverSql({ connectionString: DATABASE_URL, schema });
    await sql.exec(`CREATE FUNCTION es_append_batches(p_items jsonb)
      RETURNS TABLE (item int, next_revision bigint, commit_position xid8, prepare_position bigint, conflict boolean, actual bigint)
      LANGUAGE sql AS $$ SELECT 0, NULL::bigint, NULL::xid8, NULL::bigint, true, NULL::bigint $$`);
    const store = await PostgresEventStore.open(sql);
    expect((await store.append('upgraded', [{ type: 'x', data: {} }], 'no_stream')).nextRevision).toBe(0n);
    await store.close();
  });
});
