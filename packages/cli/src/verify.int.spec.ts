/**
 * `tokenops audit verify` on the database itself (read-only, no service): on PostgreSQL and on the
 * embedded default's data folder, with its progress bar, naming exactly the event edited in the table.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { streams } from '@tokenops/shared';
import { PostgresEventStore, embeddedSql, serverSql, type Sql } from '@tokenops/shared/adapters';
import { runCaptured } from '@tokenops/testing/cli';
import { DATABASE_URL, dropSchema, uniqueName } from '@tokenops/testing/servers';

/** The CLI verifying a database: its exit code and what it printed. */
const verify = (...args: string[]) => runCaptured(['audit', 'verify', ...args]);

/** A group with an agent's transfers, written through the store; answers the event to edit. */
async function writeLog(sql: Sql): Promise<{ id: string; stream: string }> {
  const store = await PostgresEventStore.open(sql);
  await store.append(
    streams.group('g'),
    [
      { type: 'group.created', data: {} },
      { type: 'agent.invited', data: { agent_id: 'a' } },
    ],
    'no_stream',
  );
  for (let i = 0; i < 20; i++)
    await store.append(streams.agent('a'), [{ type: 'intent.accepted', data: { amount: `${i}` } }], 'any');
  const [, , victim] = await store.readStream(streams.agent('a'));
  await store.close();
  return { id: victim!.id, stream: victim!.stream };
}

it('verifies a PostgreSQL log read-only and names the edited event', async () => {
  const schema = uniqueName('verify_cli');
  try {
    const victim = await writeLog(await serverSql({ connectionString: DATABASE_URL, schema }));
    const args = ['--database-url', DATABASE_URL, '--schema', schema];
    const intact = await verify(...args);
    expect(intact.code).toBe(0);
    expect(intact.stdout).toContain('intact: the whole log, 22 events');
    expect(intact.stderr).toMatch(/verify \[.*\] 100% \| 22 events/);
    const sql = await serverSql({ connectionString: DATABASE_URL, schema });
    await sql.query(`UPDATE es_events SET data = '{"amount":"1000"}' WHERE event_id = $1`, [victim.id]);
    await sql.close();
    const broken = await verify(...args, '--group', 'g');
    expect(broken.code).toBe(1);
    expect(broken.stdout).toContain(`hash_mismatch: ${victim.stream}@2 (${victim.id}`);
  } finally {
    await dropSchema(schema);
  }
}, 60_000);

it("verifies the embedded default's data folder, and says so when there is none", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'verify-data-'));
  await writeLog(await embeddedSql(join(dir, 'events')));
  const intact = await verify('--data-dir', dir, '--json');
  expect(intact.code).toBe(0);
  expect(JSON.parse(intact.stdout)).toMatchObject({ events: 22, hashed: 22, broken: [] });
  const none = await verify('--data-dir', join(dir, 'nothing'));
  expect(none.code).toBe(1);
  expect(none.stderr).toContain('no event log in');
}, 60_000);
