/**
 * The embedded database adapter (pglite.ts), in this thread and on a thread of its own: its
 * one-message queries answer what PGlite's own `query` answers, statements stay prepared across
 * errors and table changes, and one lock keeps every query out of a transaction that is not its own.
 */
import { PGlite } from '@electric-sql/pglite';
import { databaseTemplate } from '@tokenops/testing/database-template';
import { embeddedSql, embeddedSqlOnThread } from './pglite';
import type { Sql } from './port';

describe.each([
  ['in this thread', embeddedSql],
  ['on a thread of its own', embeddedSqlOnThread],
])('PGlite %s', (_where, open) => {
  let sql: Sql;
  let own: PGlite;

  const TABLE = `CREATE TABLE kinds (
    id int PRIMARY KEY, big bigint, num numeric, flag boolean, body jsonb, note text, at timestamptz, raw bytea, tags text[]
  );
  INSERT INTO kinds VALUES
    (1, 9007199254740993, 12.50, true, '{"b": [1, "x"], "a": null}', 'one', '2026-11-27T10:00:00Z', '\\x0102', '{a,b}'),
    (2, NULL, NULL, false, 'null', NULL, NULL, NULL, '{}');`;

  beforeAll(async () => {
    const template = await databaseTemplate();
    sql = await open(undefined, template);
    own = new PGlite({ loadDataDir: template });
    await sql.exec(TABLE);
    await own.exec(TABLE);
  });
  afterAll(async () => {
    await sql.close();
    await own.close();
  });

  it('answers the same rows, of the same types, as PGlite’s own query, with parameters of every kind', async () => {
    const select = `SELECT * FROM kinds WHERE id = ANY(ARRAY[$1::int, $2::int]) AND ($3::boolean OR $4::text IS NULL) ORDER BY id`;
    const params = [1, '2', true, null];
    const ours = await sql.query(select, params);
    expect(ours).toEqual((await own.query(select, params)).rows);
    expect(ours).toHaveLength(2);
    expect(ours[0]).toMatchObject({ big: 9007199254740993n, flag: true, body: { a: null, b: [1, 'x'] } });
    // Parameters that are not plain values (an array, bytes, a date) go through PGlite's own query.
    const typed = `SELECT id FROM kinds WHERE tags = $1 AND raw = $2 AND at = $3`;
    const values = [['a', 'b'], new Uint8Array([1, 2]), new Date('2026-11-27T10:00:00Z')];
    expect(await sql.query(typed, values)).toEqual([{ id: 1 }]);
    // A bigint parameter beyond a double's precision arrives whole.
    expect(await sql.query(`SELECT id FROM kinds WHERE big = $1`, [9007199254740993n])).toEqual([{ id: 1 }]);
  });

  it('a statement that fails answers PostgreSQL’s error, and the database goes on', async () => {
    await expect(sql.query(`SELECT * FROM nowhere WHERE id = $1`, [1])).rejects.toMatchObject({
      code: '42P01',
    });
    await expect(sql.query(`INSERT INTO kinds (id) VALUES ($1)`, [1])).rejects.toMatchObject({
      code: '23505',
    });
    // The same text again, once the table it names exists: it was not left prepared for the old schema.
    await sql.exec(`CREATE TABLE nowhere (id int)`);
    expect(await sql.query(`SELECT * FROM nowhere WHERE id = $1`, [1])).toEqual([]);
    expect(await sql.query(`SELECT count(*)::int AS n FROM kinds`)).toEqual([{ n: 2 }]);
  });

  it('a prepared statement whose table changed is prepared again, and answers the new columns', async () => {
    await sql.exec(`CREATE TABLE grows (id int)`);
    await sql.query(`INSERT INTO grows VALUES ($1)`, [1]);
    const all = `SELECT * FROM grows WHERE id = $1`;
    expect(await sql.query(all, [1])).toEqual([{ id: 1 }]);
    await sql.exec(`ALTER TABLE grows ADD COLUMN name text DEFAULT 'n'`);
    expect(await sql.query(all, [1])).toEqual([{ id: 1, name: 'n' }]);
  });

  it('a query sent while a transaction is open runs after it, never inside it', async () => {
    await sql.exec(`CREATE TABLE tx_seen (id int)`);
    let inside!: () => void;
    const opened = new Promise<void>((r) => (inside = r));
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const transaction = sql.transaction(async (tx) => {
      await tx.query(`INSERT INTO tx_seen VALUES ($1)`, [1]);
      inside();
      await held;
      throw new Error('rolled back on purpose');
    });
    await opened;
    // Sent while the transaction holds the database: it must wait, and then see nothing of it.
    const outside = sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM tx_seen`);
    const insert = sql.query(`INSERT INTO tx_seen VALUES ($1)`, [2]);
    release();
    await expect(transaction).rejects.toThrow('rolled back on purpose');
    expect(await outside).toEqual([{ n: 0 }]);
    await insert;
    expect(await sql.query(`SELECT id FROM tx_seen`)).toEqual([{ id: 2 }]);

    const committed = await sql.transaction(async (tx) => {
      await tx.query(`INSERT INTO tx_seen VALUES ($1)`, [3]);
      return (await tx.query<{ n: number }>(`SELECT count(*)::int AS n FROM tx_seen`))[0]!.n;
    });
    expect(committed).toBe(2);
  });

  it('a listener hears a NOTIFY sent by a query, once it commits', async () => {
    const heard: (string | undefined)[] = [];
    const unlisten = await sql.listen('pglite_spec', (payload) => heard.push(payload));
    await sql.query(`SELECT pg_notify('pglite_spec', $1)`, ['outside']);
    await sql.transaction(async (tx) => {
      await tx.query(`SELECT pg_notify('pglite_spec', $1)`, ['inside']);
      await new Promise((r) => setTimeout(r, 20));
      expect(heard).toEqual(['outside']);
    });
    await new Promise((r) => setTimeout(r, 20));
    expect(heard).toEqual(['outside', 'inside']);
    await unlisten();
    await sql.query(`SELECT pg_notify('pglite_spec', $1)`, ['after']);
    await new Promise((r) => setTimeout(r, 20));
    expect(heard).toEqual(['outside', 'inside']);
  });
});
