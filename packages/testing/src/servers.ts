/**
 * The real servers the integration tests use: PostgreSQL and Redis on this machine (CI starts them).
 * Override with DATABASE_URL / REDIS_URL. Each suite works in its own schema or key prefix.
 */
import { randomBytes } from 'node:crypto';
import { Pool } from 'pg';

export const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** A fresh, unique name for a schema or key prefix. */
export const uniqueName = (prefix: string): string =>
  `${prefix}_${process.pid}_${randomBytes(4).toString('hex')}`;

export async function dropSchema(schema: string, databaseUrl = DATABASE_URL): Promise<void> {
  const pool = new Pool({ connectionString: databaseUrl, max: 1 });
  try {
    await pool.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  } finally {
    await pool.end();
  }
}
