/**
 * What the embedded default asks PGlite per confirmed transfer: sequential transfers to a budgeted
 * recipient on the embedded service in this process (the test harness's world), every statement sent
 * to its PGlite counted by kind, with 2 s of idle after them (the subscribers catching up). Appends are
 * counted as the store sends them: calls of `es_append_batches`, and the streams' batches in them. The
 * CPU per transfer is this process's (the service and the client calling it) while the transfers ran.
 *
 *   npx ts-node --transpile-only bench/appends.ts            (TRANSFERS=40 by default)
 *   ATOMIC=off npx ts-node --transpile-only bench/appends.ts (the store without atomic appends, as on EventStoreDB)
 */
import { key, startWorld } from '@tokenops/testing/harness';

const TRANSFERS = Number(process.env.TRANSFERS ?? 40);

/** What a statement is, by what it names. */
function kindOf(text: string, name?: string): string {
  if (text.includes('es_append_batches')) return 'append (es_append_batches)';
  if (name) return name;
  return text.replace(/\s+/g, ' ').trim().slice(0, 60);
}

async function main(): Promise<void> {
  const world = await startWorld({ vendorBudget: 1_000_000, rateLimitPerMinute: 1_000_000 });
  try {
    if (process.env.ATOMIC === 'off')
      delete (world.service.ctx.store as { appendAtomically?: unknown }).appendAtomically;
    const agent = await world.agent(
      { per_tx_limit: 10, daily_limit: 100_000, hourly_tx_cap: 100_000 },
      100_000,
    );
    const counts = new Map<string, number>();
    const times = new Map<string, number>();
    const timed = async <T>(kind: string, run: () => Promise<T>): Promise<T> => {
      const t0 = performance.now();
      try {
        return await run();
      } finally {
        times.set(kind, (times.get(kind) ?? 0) + performance.now() - t0);
      }
    };
    let batches = 0;
    let atomic = 0;
    const sql = world.service.sql;
    const query = sql.query.bind(sql);
    const transaction = sql.transaction.bind(sql);
    const exec = sql.exec.bind(sql);
    const count = (kind: string) => counts.set(kind, (counts.get(kind) ?? 0) + 1);
    sql.transaction = ((fn) => {
      count('transaction');
      return transaction(fn);
    }) as typeof sql.transaction;
    sql.exec = (text: string) => {
      count(`exec: ${kindOf(text)}`);
      return timed(`exec: ${kindOf(text)}`, () => exec(text));
    };
    sql.query = (<R>(text: string, params?: unknown[], name?: string) => {
      const kind = kindOf(text, name);
      count(kind);
      if (kind.startsWith('append')) {
        const items = JSON.parse(params![0] as string) as { all?: unknown[] }[];
        for (const item of items) {
          batches += item.all ? item.all.length : 1;
          if (item.all) atomic += 1;
        }
      }
      return timed(kind, () => query<R>(text, params, name));
    }) as typeof sql.query;
    const cpu = process.cpuUsage();
    const started = Date.now();
    for (let i = 0; i < TRANSFERS; i++) {
      const reply = await world.client.call('POST', '/api/v1/transfer', {
        token: agent.key,
        body: { to: world.vendor, amount: 1, idempotency_key: key() },
      });
      if (reply.status !== 200)
        throw new Error(`transfer ${i}: ${reply.status} ${JSON.stringify(reply.body)}`);
    }
    const { user, system } = process.cpuUsage(cpu);
    const elapsed = Date.now() - started;
    await new Promise((r) => setTimeout(r, 2_000));
    Object.assign(sql, { query, transaction, exec });
    const per = (n: number) => (n / TRANSFERS).toFixed(2);
    const total = [...counts.values()].reduce((a, b) => a + b, 0);
    console.log(`${TRANSFERS} confirmed transfers to a budgeted recipient; per transfer:`);
    for (const [kind, n] of [...counts].sort((a, b) => b[1] - a[1]))
      console.log(
        `  ${per(n).padStart(6)}  ${kind}${times.has(kind) ? ` (${(times.get(kind)! / n).toFixed(2)} ms each, waits included)` : ''}`,
      );
    console.log(`  ${per(total).padStart(6)}  statements in all`);
    console.log(
      `  ${per(batches).padStart(6)}  streams' batches appended (${per(atomic)} atomic appends of several)`,
    );
    // The process holds the service and the client calling it: for comparing runs, not the service's own figure.
    const cpuMs = (user + system) / 1000 / TRANSFERS;
    console.log(
      `  ${cpuMs.toFixed(2).padStart(6)}  ms of this process's CPU (${(elapsed / TRANSFERS).toFixed(1)} ms wall)`,
    );
  } finally {
    await world.close();
  }
}

void main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
