/**
 * The SQL a PostgreSQL adapter needs, over either a server (`pg`) or PGlite (PostgreSQL compiled to
 * WebAssembly, in-process, in a data folder). Both speak the same SQL, so one adapter serves both.
 */
import { PGlite } from '@electric-sql/pglite';
import { reaching, unavailableOr } from '../errors/unavailable';
import { Pool, type PoolClient } from 'pg';
import type { Sql } from './port';

const POSTGRESQL = 'the event store (PostgreSQL)';

export type { Sql };

export interface ServerOptions {
  connectionString: string;
  /** Schema to create and use (search_path); lets tests and tenants share one database. */
  schema?: string;
  max?: number;
}

const IDENTIFIER = /^[a-z_][a-z0-9_]*$/;

/** A pool of connections to a PostgreSQL server. */
export async function serverSql(options: ServerOptions): Promise<Sql> {
  const schema = options.schema ?? 'public';
  if (!IDENTIFIER.test(schema)) throw new Error(`schema name ${schema} must match ${IDENTIFIER}`);
  if (schema !== 'public') {
    const admin = new Pool({ connectionString: options.connectionString, max: 1 });
    try {
      await admin.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
    } catch (err) {
      // Two processes creating the schema at once: one wins, the other sees it exist.
      if ((err as { code?: string }).code !== '23505') throw err;
    } finally {
      await admin.end();
    }
  }
  const pool = new Pool({
    connectionString: options.connectionString,
    max: options.max ?? 20,
    options: `-c search_path=${schema}`,
  });
  // An idle client that loses its server must not crash the process; the next query reconnects.
  pool.on('error', () => undefined);
  return {
    async query<R>(text: string, params?: unknown[], name?: string) {
      return reaching(
        POSTGRESQL,
        async () =>
          (await pool.query({ text, values: params as unknown[], ...(name && { name }) })).rows as R[],
      );
    },
    async exec(text) {
      await reaching(POSTGRESQL, () => pool.query(text));
    },
    async listen(channel, onNotify) {
      if (!IDENTIFIER.test(channel)) throw new Error(`channel ${channel} must match ${IDENTIFIER}`);
      let client: PoolClient | undefined;
      let closed = false;
      // A connection that fails is dropped once (an error may be reported more than once) and replaced.
      const drop = (c: PoolClient) => {
        if (client !== c) return;
        client = undefined;
        c.release(true);
        if (!closed) setTimeout(() => void connect(), 500).unref();
      };
      const connect = async (): Promise<void> => {
        let c: PoolClient | undefined;
        try {
          c = await pool.connect();
          // Stopped while this connection was on its way (a reconnection after a failure): a
          // connection kept here would never be released, and closing the pool waits for it.
          if (closed) {
            c.release();
            return;
          }
          client = c;
          const mine = c;
          c.on('notification', (msg) => msg.channel === channel && onNotify(msg.payload));
          c.on('error', () => drop(mine));
          await c.query(`LISTEN ${channel}`);
          onNotify(); // anything committed while we were not listening
        } catch {
          if (c) drop(c);
          else if (!closed) setTimeout(() => void connect(), 500).unref();
        }
      };
      await connect();
      return async () => {
        closed = true;
        const c = client;
        client = undefined;
        if (c) {
          await c.query(`UNLISTEN ${channel}`).catch(() => undefined);
          c.release();
        }
      };
    },
    async transaction(fn) {
      const client = await reaching(POSTGRESQL, () => pool.connect());
      try {
        await client.query('BEGIN');
        const result = await fn({
          query: async <R>(text: string, params?: unknown[]) =>
            (await client.query(text, params as unknown[])).rows as R[],
          // Without parameters pg uses the simple protocol, which runs several statements.
          exec: async (text: string) => void (await client.query(text)),
        });
        await client.query('COMMIT');
        return result;
      } catch (err) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw unavailableOr(POSTGRESQL, err);
      } finally {
        client.release();
      }
    },
    close: () => pool.end(),
  };
}

/**
 * PGlite in a data folder, or in memory when `dataDir` is absent: a new cluster, or one started from
 * the files of an empty cluster (`template`, from `emptyClusterFiles`). Creating a cluster (initdb) is
 * most of an in-memory start, about 2.5 s of CPU on a 2-core machine; loading its files under 1 s.
 */
export { embeddedSql, embeddedSqlOnThread } from './pglite';

/** The files of a new, empty PGlite cluster: what `embeddedSql` can start an in-memory database from. */
export async function emptyClusterFiles(): Promise<Blob> {
  const db = new PGlite();
  await db.waitReady;
  try {
    return await db.dumpDataDir('none');
  } finally {
    await db.close();
  }
}
