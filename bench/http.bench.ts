/**
 * The agent contract over HTTP on the embedded default, measured as a user runs it: the service in its
 * own process (`node bin/start.js embedded`, a fresh DATA_DIR), autocannon in another
 * (./load-runner.ts), on loopback. Confirmed transfers/s with many agents in parallel and the CPU of
 * each process per transfer; then GET /limits beside a bare Express handler (in this process) that
 * answers the same JSON, in the same run: alternating rounds of each, figures the medians of the rounds
 * (throughput, each round's ratio, CPU per request of the service's process and of this one).
 * BENCH_SERVICE_NODE_ARGS passes flags to the service's node (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`).
 */
import express from 'express';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@tokenops/testing/harness';
import { Proc, freePort } from '@tokenops/testing/topology';
import { cpuTable, threadSnapshot } from './cpu';
import { fundedAgents, load } from './load';
import { median, report } from './harness';

const CONNECTIONS = 32;
/** GET /limits is measured in this many rounds (at BENCH_SCALE=1) of bare Express then the service. */
const LIMITS_ROUNDS = 8;
const LIMITS_ROUND_SECONDS = 2;

/** `npm start` in a fresh data folder, the per-agent rate limit out of the way of the load. */
async function startService(dir: string): Promise<Proc> {
  const env = {
    PATH: process.env.PATH,
    NODE_ENV: 'production',
    LOG_LEVEL: 'error',
    DATA_DIR: join(dir, 'data'),
    DEMO: 'false',
    RATE_LIMIT_PER_MINUTE: '1000000', // the load is many requests a minute per agent, on purpose
    ...(process.env.BENCH_SERVICE_NODE_ARGS && { NODE_ARGS: process.env.BENCH_SERVICE_NODE_ARGS }),
  };
  const service = new Proc('embedded', 'embedded', await freePort(), env, dir);
  await service.start().ready();
  return service;
}

export async function httpBench(): Promise<string> {
  const scale = Number(process.env.BENCH_SCALE ?? 1);
  const dir = mkdtempSync(join(tmpdir(), 'tokenops-http-bench-'));
  const service = await startService(dir);
  try {
    const client = new Client(service.url);
    const agents = await fundedAgents(client, 32);
    const transfers = (amount: number, tag: string) =>
      load({
        url: service.url,
        connections: CONNECTIONS,
        amount,
        requests: { kind: 'transfer', agents, tag },
      });
    await transfers(300, 'warm-up');
    const cpuBefore = threadSnapshot('service', service.child!.pid!);
    const run = await transfers(Math.round(3000 * scale), 'bench');
    const cpuAfter = threadSnapshot('service', service.child!.pid!);
    const confirmed = run['2xx'];
    const transferRate = confirmed / (run.duration || 1);
    console.log(
      `\nCPU by process during the transfers:\n\n${cpuTable(cpuBefore, cpuAfter, confirmed, run.duration, {
        'load generator': run.cpuMs,
      })}\n`,
    );

    const limitsBody = JSON.stringify(
      (await client.call('GET', '/api/v1/limits', { token: agents[0]!.key })).body,
    );
    const bare = express();
    bare.get('/api/v1/limits', (_req, res) => void res.type('application/json').send(limitsBody));
    const bareServer = bare.listen(0, '127.0.0.1');
    await new Promise((r) => bareServer.once('listening', r));
    const bareUrl = `http://127.0.0.1:${(bareServer.address() as AddressInfo).port}`;
    const limits = (url: string, duration: number) =>
      load({
        url,
        connections: 16,
        duration,
        requests: {
          kind: 'fixed',
          path: '/api/v1/limits',
          headers: { authorization: `Bearer ${agents[0]!.key}` },
        },
      });
    // Alternating short rounds, each figure the median of its rounds: this machine's speed wanders by
    // more than the differences measured, within a minute as between runs.
    const servicePid = service.child!.pid!;
    const serviceCpu = () => Object.values(threadSnapshot('service', servicePid)).reduce((a, b) => a + b, 0);
    const round = async () => {
      const bareBefore = process.cpuUsage();
      const bareRun = await limits(bareUrl, LIMITS_ROUND_SECONDS);
      const bareCpu = process.cpuUsage(bareBefore);
      const before = serviceCpu();
      const serviceRun = await limits(service.url, LIMITS_ROUND_SECONDS);
      return {
        bare: bareRun.requests.average,
        service: serviceRun.requests.average,
        bareUs: (bareCpu.user + bareCpu.system) / bareRun.requests.total,
        serviceUs: ((serviceCpu() - before) * 1000) / serviceRun.requests.total,
      };
    };
    await limits(bareUrl, 1);
    await limits(service.url, 1);
    const rounds: Awaited<ReturnType<typeof round>>[] = [];
    for (let i = 0; i < Math.max(3, Math.round(LIMITS_ROUNDS * scale)); i++) rounds.push(await round());
    const med = (pick: (r: (typeof rounds)[number]) => number) => median(rounds.map(pick));
    const ratios = rounds.map((r) => r.service / r.bare).sort((a, b) => a - b);
    bareServer.close();

    return report('Agent contract over HTTP (embedded default in its own process, load from another)', [
      {
        name: `confirmed transfers/s (32 agents, ${CONNECTIONS} connections, ${confirmed} confirmed, ${run.non2xx} other)`,
        value: transferRate,
        unit: 'tx/s',
        target: '>= 400 tx/s',
      },
      { name: 'transfer latency p50', value: run.latency.p50, unit: 'ms' },
      { name: 'transfer latency p99', value: run.latency.p99, unit: 'ms' },
      {
        name: 'CPU per confirmed transfer: service / load generator',
        value:
          Object.keys(cpuAfter).reduce((n, k) => n + cpuAfter[k]! - (cpuBefore[k] ?? 0), 0) /
          (confirmed || 1),
        unit: `ms / ${(run.cpuMs / (confirmed || 1)).toFixed(2)} ms`,
      },
      {
        name: `GET /api/v1/limits (medians of ${rounds.length} alternating rounds of ${LIMITS_ROUND_SECONDS} s)`,
        value: med((r) => r.service),
        unit: 'req/s',
        baseline: { name: 'bare Express, same JSON', value: med((r) => r.bare) },
        target: '>= 0.6x bare',
      },
      {
        name: "GET /api/v1/limits: each round's ratio to bare Express, median (lowest-highest)",
        value: median(ratios),
        unit: `x (${ratios[0]!.toFixed(2)}-${ratios[ratios.length - 1]!.toFixed(2)})`,
      },
      {
        name: 'GET /api/v1/limits: CPU per request, service / bare Express (medians)',
        value: med((r) => r.serviceUs),
        unit: `µs / ${Math.round(med((r) => r.bareUs))} µs`,
      },
    ]);
  } finally {
    await service.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  }
}
