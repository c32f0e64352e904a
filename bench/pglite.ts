/**
 * PGlite as the embedded default speaks to it (sql/pglite.ts) beside PGlite's own `query`, in one run:
 * CPU per one-row SELECT and per UPDATE of one row; then the event store's appends, one at a time and
 * 8 or 32 made in the same turn (they share a transaction). In-memory database, this process.
 *
 *   npx ts-node --transpile-only bench/pglite.ts        (N=3000 by default)
 */
import { PGlite } from '@electric-sql/pglite';
import { PostgresEventStore, embeddedSql } from '@tokenops/shared/adapters';

const N = Number(process.env.N ?? 3000);

async function cpuPer(n: number, run: (i: number) => Promise<unknown>): Promise<number> {
  for (let i = 0; i < 200; i++) await run(i); // warm-up
  const start = process.cpuUsage();
  for (let i = 0; i < n; i++) await run(i);
  const { user, system } = process.cpuUsage(start);
  return (user + system) / 1000 / n;
}

async function main(): Promise<void> {
  const setup = `CREATE TABLE t (k text PRIMARY KEY, v bigint, j jsonb); INSERT INTO t VALUES ('a', 1, '{"x": 1}')`;
  const own = new PGlite();
  await own.exec(setup);
  const sql = await embeddedSql();
  await sql.exec(setup);
  const select = `SELECT k, v, j FROM t WHERE k = $1`;
  const update = `UPDATE t SET v = v + 1 WHERE k = $1`;
  const rows: [string, number, number][] = [
    [
      'one-row SELECT',
      await cpuPer(N, () => own.query(select, ['a'])),
      await cpuPer(N, () => sql.query(select, ['a'])),
    ],
    [
      'UPDATE of one row',
      await cpuPer(N, () => own.query(update, ['a'])),
      await cpuPer(N, () => sql.query(update, ['a'])),
    ],
  ];
  console.log(`| statement | PGlite's query (ms CPU) | the adapter (ms CPU) | ratio |\n|---|---|---|---|`);
  for (const [what, a, b] of rows)
    console.log(`| ${what} | ${a.toFixed(3)} | ${b.toFixed(3)} | ${(a / b).toFixed(2)}x |`);

  const store = await PostgresEventStore.open(sql, { onlyWriter: true });
  const data = {
    intent_id: 'i'.repeat(36),
    amount: '1000000',
    to: 'A'.repeat(44),
    mint: 'B'.repeat(44),
    signature: 'C'.repeat(88),
  };
  const metadata = { correlation_id: 'c'.repeat(36), causation_id: 'd'.repeat(36) };
  console.log(`\n| appends made in one turn | ms CPU per append (one event each) |\n|---|---|`);
  for (const together of [1, 8, 32]) {
    const per = await cpuPer(Math.ceil(N / together), (i) =>
      Promise.all(
        Array.from({ length: together }, (_, k) =>
          store.append(
            `agent-${(i * together + k) % 64}`,
            [{ type: 'transfer.submitted', data, metadata }],
            'any',
          ),
        ),
      ),
    );
    console.log(`| ${together} | ${(per / together).toFixed(3)} |`);
  }
  await Promise.all([own.close(), store.close()]);
}

void main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
