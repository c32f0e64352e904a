/**
 * The PostgreSQL server's `Sql` (serverSql): what its listener does when its connection is lost.
 */
import { Pool } from 'pg';
import { DATABASE_URL, dropSchema, uniqueName } from '@tokenops/testing/servers';
import { settlesWithin } from '@tokenops/testing/time';
import { serverSql } from './sql';
import { setTimeout as sleep } from 'node:timers/promises';

describe('serverSql listen', () => {
  const schema = uniqueName('sql');
  const admin = new Pool({ connectionString: DATABASE_URL, max: 1 });
  afterAll(async () => {
    await admin.end();
    await dropSchema(schema);
  });

  it('stopped while it reconnects, it keeps no connection: the pool then closes', async () => {
    // One connection in the pool, so the listener's reconnection waits for the one a transaction holds.
    const sql = await serverSql({ connectionString: DATABASE_URL, schema, max: 1 });
    const channel = uniqueName('ch').replace(/[^a-z0-9_]/g, '_');
    const unlisten = await sql.listen(channel, () => undefined);
    // The server ends the listener's connection; the listener reconnects after half a second.
    await admin.query(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query = 'LISTEN ${channel}'`,
    );
    let release!: () => void;
    const held = sql.transaction(() => new Promise<void>((r) => (release = r)));
    await sleep(800); // the listener now waits for the pool's connection
    await unlisten();
    release();
    await held;
    expect(await settlesWithin(sql.close(), 10_000)).toBe(true);
  });
});
