/**
 * What PGlite is asked per confirmed transfer on the embedded default (docs/performance.md, issue 28):
 * the service in this process, PGlite's query, exec and transaction counted (a transaction is one,
 * whatever it runs) while 40 transfers go to a budgeted recipient one after another, then 2 s idle.
 * `npx ts-node --transpile-only bench/statements.ts`
 */
import { PGlite } from '@electric-sql/pglite';
import { key, startWorld } from '@tokenops/testing/harness';

const TRANSFERS = 40;

/** What a statement is, by its text. */
function kind(text: string): string {
  if (text.includes('es_append_batches')) return 'append (es_append_batches)';
  if (text.includes('pg_snapshot_xmin') && text.includes('LIMIT $3')) return 'log read (readAll)';
  if (text.includes('pg_snapshot_xmin')) return 'log head';
  if (text.includes('stream_name = $1')) return 'stream read';
  return 'other';
}

const counts = new Map<string, number>();
let counting = false;
const count = (what: string) => counting && counts.set(what, (counts.get(what) ?? 0) + 1);
const proto = PGlite.prototype as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>;
for (const method of ['query', 'exec'] as const) {
  const original = proto[method]!;
  proto[method] = function (this: unknown, ...args: unknown[]) {
    count(method === 'exec' ? 'exec' : kind(String(args[0])));
    return original.apply(this, args);
  };
}
const transaction = proto.transaction!;
proto.transaction = function (this: unknown, ...args: unknown[]) {
  count('transaction (checkpoints, deliveries)');
  return transaction.apply(this, args);
};

async function main() {
  const world = await startWorld({ vendorBudget: 1_000_000, rateLimitPerMinute: 1_000_000 });
  try {
    const agent = await world.agent({ per_tx_limit: 10, daily_limit: 100_000, hourly_tx_cap: 100_000 }, 1000);
    const transfer = async () => {
      const reply = await world.client.call('POST', '/api/v1/transfer', {
        token: agent.key,
        body: { to: world.vendor, amount: 1, idempotency_key: key() },
      });
      if (reply.status !== 200) throw new Error(`transfer: ${reply.status} ${JSON.stringify(reply.body)}`);
    };
    for (let i = 0; i < 5; i++) await transfer(); // warm up
    await new Promise((r) => setTimeout(r, 2_000));
    counting = true;
    for (let i = 0; i < TRANSFERS; i++) await transfer();
    await new Promise((r) => setTimeout(r, 2_000));
    counting = false;
    let total = 0;
    for (const [what, n] of [...counts].sort((a, b) => b[1] - a[1])) {
      total += n;
      console.log(`${what.padEnd(40)} ${(n / TRANSFERS).toFixed(2)} a transfer`);
    }
    console.log(`${'all statements'.padEnd(40)} ${(total / TRANSFERS).toFixed(2)} a transfer`);
  } finally {
    await world.close();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
