/**
 * Two checkouts of the service side by side on the embedded default, in interleaved rounds: which is
 * cheaper, when this machine's speed wanders by more than the difference measured (it does, within a
 * minute). Each checkout's `node bin/start.js embedded` runs in its own process on a fresh data folder,
 * with 16 funded agents and 400 transfers done; then each round loads one, then the other (the order
 * swapped every round), and reads each service's CPU from /proc. A change is real when the figure
 * leans the same way in most rounds.
 *
 *   git worktree add /tmp/before <commit>      (and link or install its node_modules)
 *   COMPARE_A=/tmp/before COMPARE_B=. npx ts-node --transpile-only bench/compare.ts
 *
 * COMPARE_LOAD: `limits` (default: 2 s of GET /api/v1/limits, 16 connections, an agent with about 25
 * spends in its window) or `transfers` (500 confirmed transfers among the 16 agents, 16 connections);
 * COMPARE_ROUNDS: rounds (default 12). Prints each round and the medians: CPU per request of each
 * service, the ratio A/B (above 1: B is cheaper), and in how many rounds B was cheaper.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@tokenops/testing/harness';
import { Proc, freePort } from '@tokenops/testing/topology';
import { processCpuMs } from './cpu';
import { median } from './harness';
import { fundedAgents, load, type BenchAgent } from './load';

const LOADS = ['limits', 'transfers'] as const;
type Load = (typeof LOADS)[number];

interface Service {
  proc: Proc;
  agents: BenchAgent[];
  dataDir: string;
}

/** Starts one checkout's service; it is in `started` from its spawn on, so a failed start is stopped too. */
async function start(
  name: string,
  checkout: string,
  started: Pick<Service, 'proc' | 'dataDir'>[],
): Promise<Service> {
  const dataDir = mkdtempSync(join(tmpdir(), 'tokenops-compare-'));
  const env = {
    PATH: process.env.PATH,
    NODE_ENV: 'production',
    LOG_LEVEL: 'error',
    DATA_DIR: dataDir,
    DEMO: 'false',
    RATE_LIMIT_PER_MINUTE: '1000000', // the load is many requests a minute per agent, on purpose
  };
  // Its log (errors only) lands in its data folder, beside its data.
  const proc = new Proc(name, 'embedded', await freePort(), env, dataDir, resolve(checkout));
  started.push({ proc, dataDir });
  await proc.start().ready();
  const agents = await fundedAgents(new Client(proc.url), 16);
  await load({
    url: proc.url,
    connections: 8,
    amount: 400,
    requests: { kind: 'transfer', agents, tag: 'warm-up' },
  });
  return { proc, agents, dataDir };
}

/** One round on one service: requests a second, and the service's CPU µs per request. */
async function round(service: Service, kind: Load, n: number): Promise<{ rate: number; us: number }> {
  const before = processCpuMs(service.proc.child!.pid!);
  const run =
    kind === 'transfers'
      ? await load({
          url: service.proc.url,
          connections: 16,
          amount: 500,
          requests: { kind: 'transfer', agents: service.agents, tag: `round-${n}` },
        })
      : await load({
          url: service.proc.url,
          connections: 16,
          duration: 2,
          requests: {
            kind: 'fixed',
            path: '/api/v1/limits',
            headers: { authorization: `Bearer ${service.agents[0]!.key}` },
          },
        });
  const done = kind === 'transfers' ? run['2xx'] : run.requests.total;
  return {
    rate: done / (run.duration || 1),
    us: ((processCpuMs(service.proc.child!.pid!) - before) * 1000) / done,
  };
}

async function main(): Promise<void> {
  const [a, b] = [process.env.COMPARE_A, process.env.COMPARE_B];
  const kind = (process.env.COMPARE_LOAD ?? 'limits') as Load;
  const rounds = Number(process.env.COMPARE_ROUNDS ?? 12);
  if (!a || !b || !LOADS.includes(kind) || !(rounds > 0))
    throw new Error(
      'set COMPARE_A and COMPARE_B (checkouts), COMPARE_LOAD=limits|transfers, COMPARE_ROUNDS > 0',
    );
  const started: Pick<Service, 'proc' | 'dataDir'>[] = [];
  let done = false;
  try {
    const services = [await start('A', a, started), await start('B', b, started)] as const;
    const rows: { a: { rate: number; us: number }; b: { rate: number; us: number } }[] = [];
    for (let i = 0; i < rounds; i++) {
      const [first, second] = i % 2 === 0 ? services : ([services[1], services[0]] as const);
      const x = await round(first, kind, i);
      const y = await round(second, kind, i);
      const row = i % 2 === 0 ? { a: x, b: y } : { a: y, b: x };
      rows.push(row);
      console.log(
        `round ${i + 1}: A ${row.a.rate.toFixed(0)}/s ${row.a.us.toFixed(0)} µs, B ${row.b.rate.toFixed(0)}/s ` +
          `${row.b.us.toFixed(0)} µs, A/B ${(row.a.us / row.b.us).toFixed(2)}`,
      );
    }
    const med = (pick: (r: (typeof rows)[number]) => number) => median(rows.map(pick));
    console.log(
      `\n${kind}, medians of ${rounds} rounds: A ${med((r) => r.a.rate).toFixed(0)}/s at ` +
        `${med((r) => r.a.us).toFixed(0)} µs of its CPU a request; B ${med((r) => r.b.rate).toFixed(0)}/s at ` +
        `${med((r) => r.b.us).toFixed(0)} µs; A/B ${med((r) => r.a.us / r.b.us).toFixed(2)}; ` +
        `B cheaper in ${rows.filter((r) => r.b.us < r.a.us).length} of ${rounds} rounds`,
    );
    done = true;
  } finally {
    // Every service started is stopped; after a failure their folders stay, with their logs.
    for (const s of started) {
      await s.proc.kill('SIGTERM');
      if (done) rmSync(s.dataDir, { recursive: true, force: true });
      else console.error(`${s.proc.name}'s data and log kept in ${s.dataDir}`);
    }
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  },
);
