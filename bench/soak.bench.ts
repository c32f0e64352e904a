/**
 * A soak: the server topology (two API instances, two executors, a projector, a delivery worker and
 * the chain node, on this machine's PostgreSQL and Redis) under a steady mixed load for a long time,
 * to see whether memory and latency stay flat. The group's transfers and swaps go out as webhooks to
 * a local HTTPS receiver that counts them. The full rate of the mix is measured briefly first
 * (autocannon, 64 connections per instance), or taken from SOAK_RATE; then an open loop at half of it
 * runs for SOAK_MINUTES (60 by default): of every 20 requests 14 transfers, 5 reads (GET /balance,
 * /limits, /history in turn) and 1 swap, spread over both instances (load-runner.ts `paced`, `mix`).
 *
 * Every interval (a tenth of the run, at most a minute; SOAK_INTERVAL_SECONDS to choose) it records
 * the resident memory of each process (/proc/<pid>/status VmRSS) and its V8 heap in use (its /metrics),
 * PostgreSQL's private memory summed over its processes (RssAnon), Redis's VmRSS and the data it
 * holds (INFO used_memory; both servers shared with whatever else uses them), the interval's p50 and
 * p99 (all requests and by kind), answers other than 2xx, webhooks delivered, the machine's cores busy
 * (and stolen by its host), and each process's CPU per request answered: so a
 * rising p99 says whether each request cost more or the machine was taken.
 * BENCH_SERVICE_NODE_ARGS passes flags to every process's node, as in the server bench (a CPU profile
 * of each: `--cpu-prof --cpu-prof-dir=DIR`, written when the process stops).
 * The report: those as tables, memory per process, p99 and CPU a request as text charts, and the
 * verdict as numbers: each memory curve's slope over the second half (least squares, MB per 10
 * minutes), and the median interval p99 and CPU a request of the second half over the first's; and
 * what the topology's keys in Redis hold at the end, by kind of key (what grows, named).
 */
import { randomBytes } from 'node:crypto';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { plot } from 'asciichart';
import Redis from 'ioredis';
import { Client, enact } from '@tokenops/testing/harness';
import { Topology } from '@tokenops/testing/topology';
import { fundedGroup, load, loadPaced, type IntervalStats, type MixSpec, type RequestKind } from './load';
import { cpuSnapshot, machineTimes } from './cpu';
import { median } from './harness';
import { startBenchReceiver } from './webhooks.bench';

const CONNECTIONS = 64; // per API instance, when finding the full rate
const WEIGHTS = { transfer: 14, read: 5, swap: 1 };
/** Flat: memory growing at most this much over the second half, p99 at most this ratio. */
const FLAT_MB_PER_10_MIN = 2;
const FLAT_P99_RATIO = 1.2;

/** One interval of the soak: the load runner's figures, memory (MB) by process, webhooks so far. */
interface Row {
  stats: IntervalStats;
  memory: Record<string, number | undefined>;
  /** CPU ms each process spent in the interval, per request answered in it (absent for the run's last, short interval). */
  cpu?: Record<string, number>;
  /** The machine's cores busy over the interval, and of them the cores stolen by its host. */
  cores: { busy: number; stolen: number };
  delivered: number;
  /** Transfers and swaps confirmed so far (each is one webhook). */
  confirmedSpends: number;
}

/** A /proc/<pid>/status field in MB (kB there); undefined when the process is gone. */
function statusMb(pid: number, field: 'VmRSS' | 'RssAnon'): number | undefined {
  try {
    const line = readFileSync(`/proc/${pid}/status`, 'utf8')
      .split('\n')
      .find((l) => l.startsWith(`${field}:`));
    return line ? Number(line.split(/\s+/)[1]) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** PostgreSQL's private memory over all its processes (RssAnon: shared buffers are not counted again and again), and Redis's RSS. */
function serversMb(): Record<string, number | undefined> {
  let postgres: number | undefined;
  let redis: number | undefined;
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!pid) continue;
    let comm = '';
    try {
      comm = readFileSync(`/proc/${pid}/comm`, 'utf8');
    } catch {
      continue;
    }
    if (comm.startsWith('postgres')) postgres = (postgres ?? 0) + (statusMb(pid, 'RssAnon') ?? 0);
    if (comm.startsWith('redis-server')) redis = (redis ?? 0) + (statusMb(pid, 'VmRSS') ?? 0);
  }
  return { 'postgres (private)': postgres, redis };
}

/** The data Redis holds (INFO used_memory, MB): what its keys take, where its RSS also counts the allocator's slack. */
async function redisDataMb(redis: Redis): Promise<number | undefined> {
  const used = /used_memory:(\d+)/.exec(await redis.info('memory').catch(() => ''))?.[1];
  return used === undefined ? undefined : Number(used) / 2 ** 20;
}

/** A key's kind: its ids (uuids, base58 addresses, numbers) left out. Pure. */
export const keyKind = (key: string, prefix: string): string =>
  key
    .slice(prefix.length + 1)
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '<uuid>')
    .replace(/[1-9A-HJ-NP-Za-km-z]{32,44}/g, '<address>')
    .replace(/\d+/g, '<n>');

/** The topology's keys in Redis by kind, with what they take (MEMORY USAGE), the largest first. */
async function redisKeysByKind(redis: Redis, prefix: string): Promise<string> {
  const kinds = new Map<string, { keys: number; bytes: number }>();
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
    cursor = next;
    const sizes = await Promise.all(keys.map((k) => redis.memory('USAGE', k)));
    keys.forEach((k, i) => {
      const kind = keyKind(k, prefix);
      const sum = kinds.get(kind) ?? { keys: 0, bytes: 0 };
      kinds.set(kind, { keys: sum.keys + 1, bytes: sum.bytes + Number(sizes[i] ?? 0) });
    });
  } while (cursor !== '0');
  const rows = [...kinds].sort((a, b) => b[1].bytes - a[1].bytes);
  return [
    '| key (under the prefix) | keys | MB |',
    '|---|---:|---:|',
    ...rows.map(([kind, k]) => `| \`${kind}\` | ${k.keys} | ${(k.bytes / 2 ** 20).toFixed(2)} |`),
  ].join('\n');
}

/**
 * A process's V8 heap in use (MB), from its Prometheus `/metrics` (`nodejs_heap_size_used_bytes`; the
 * API serves it to the bearer of METRICS_TOKEN): what it holds, where its RSS also counts the room V8
 * keeps above it. Undefined when it does not answer.
 */
async function heapMb(url: string, token: string): Promise<number | undefined> {
  try {
    const res = await fetch(`${url}/metrics`, {
      headers: { authorization: `Bearer ${token}` },
      signal: AbortSignal.timeout(2000),
    });
    const line = (await res.text()).split('\n').find((l) => l.startsWith('nodejs_heap_size_used_bytes'));
    return line === undefined ? undefined : Number(line.split(' ').at(-1)) / 2 ** 20;
  } catch {
    return undefined;
  }
}

/** Least-squares slope of y over x; 0 with fewer than two points. Pure. */
export function slope(points: readonly { x: number; y: number }[]): number {
  const n = points.length;
  if (n < 2) return 0;
  const mx = points.reduce((s, p) => s + p.x, 0) / n;
  const my = points.reduce((s, p) => s + p.y, 0) / n;
  const sxx = points.reduce((s, p) => s + (p.x - mx) ** 2, 0);
  const sxy = points.reduce((s, p) => s + (p.x - mx) * (p.y - my), 0);
  return sxx === 0 ? 0 : sxy / sxx;
}

/** A text chart of `values` (asciichart), each value `columns` wide so a short run is readable. */
function chart(values: number[], columns: number, unit: string): string {
  const series = values.flatMap((v) => Array.from({ length: columns }, () => v));
  return plot(series, { height: 6, format: (x) => `${x.toFixed(x < 10 ? 1 : 0).padStart(7)} ${unit}` });
}

const sum = (values: Record<string, number> | undefined) =>
  values ? Object.values(values).reduce((n, v) => n + v, 0) : undefined;
const fmt = (n: number | undefined, digits = 0) => (n === undefined ? '—' : n.toFixed(digits));

function report(rows: Row[], o: { rate: number; found: boolean; minutes: number; interval: number }) {
  const names = Object.keys(rows[0]?.memory ?? {});
  const minutes = (r: Row) => r.stats.at / 60;
  const p99 = (r: Row, kind?: RequestKind) =>
    kind ? r.stats.byKind[kind]?.latency.p99 : r.stats.latency.p99;
  const others = (r: Row) =>
    Object.entries(r.stats.others)
      .map(([k, n]) => `${k}: ${n}`)
      .join(', ') || '0';
  const load = [
    '| t (min) | sent | 2xx | other | p50 ms | p99 ms | p99 transfer | p99 swap | p99 read | in flight | webhooks delivered (all so far) | transfers and swaps confirmed − delivered (so far) |',
    '|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...rows.map(
      (r) =>
        `| ${minutes(r).toFixed(1)} | ${r.stats.sent} | ${r.stats.confirmed} | ${others(r)} | ${fmt(r.stats.latency.p50, 1)} | ${fmt(p99(r), 1)} | ${fmt(p99(r, 'transfer'), 1)} | ${fmt(p99(r, 'swap'), 1)} | ${fmt(p99(r, 'read'), 1)} | ${r.stats.inFlight} | ${r.delivered} | ${r.confirmedSpends - r.delivered} |`,
    ),
  ].join('\n');
  const memory = [
    `| t (min) | ${names.join(' | ')} |`,
    `|---:|${names.map(() => '---:').join('|')}|`,
    ...rows.map((r) => `| ${minutes(r).toFixed(1)} | ${names.map((n) => fmt(r.memory[n], 1)).join(' | ')} |`),
  ].join('\n');

  const measured = rows.filter((r) => r.cpu);
  const processes = Object.keys(measured[0]?.cpu ?? {});
  const cpu = [
    `| t (min) | cores busy (of them stolen) | CPU ms a request, all | ${processes.join(' | ')} |`,
    `|---:|---:|---:|${processes.map(() => '---:').join('|')}|`,
    ...measured.map(
      (r) =>
        `| ${minutes(r).toFixed(1)} | ${r.cores.busy.toFixed(2)} (${r.cores.stolen.toFixed(2)}) | ${fmt(sum(r.cpu), 2)} | ${processes.map((n) => fmt(r.cpu?.[n], 2)).join(' | ')} |`,
    ),
  ].join('\n');

  const columns = Math.max(1, Math.floor(60 / Math.max(1, rows.length)));
  const caption = `one interval (${o.interval} s) is ${columns} column${columns > 1 ? 's' : ''}, from ${minutes(rows[0]!).toFixed(1)} to ${minutes(rows.at(-1)!).toFixed(1)} min`;
  const charts = [
    ...names.map((n) => ({
      title: `${n}, memory (MB)`,
      values: rows.map((r) => r.memory[n] ?? 0),
      unit: 'MB',
    })),
    { title: 'p99 of the interval, all requests (ms)', values: rows.map((r) => p99(r) ?? 0), unit: 'ms' },
    {
      title: 'CPU of the processes per request answered in the interval (ms)',
      values: measured.map((r) => sum(r.cpu)!),
      unit: 'ms',
    },
  ]
    .map((c) => `${c.title}; ${caption}\n\n\`\`\`text\n${chart(c.values, columns, c.unit)}\n\`\`\``)
    .join('\n\n');

  // The verdict: the second half of the run against the first, in numbers.
  const half = rows.at(-1)!.stats.at / 2;
  const first = rows.filter((r) => r.stats.at <= half);
  const second = rows.filter((r) => r.stats.at > half);
  const slopes = names.map((n) => {
    const points = second
      .filter((r) => r.memory[n] !== undefined)
      .map((r) => ({ x: minutes(r), y: r.memory[n]! }));
    const perTen = slope(points) * 10;
    const gone = rows.some((r) => r.memory[n] === undefined) && !n.startsWith('postgres') && n !== 'redis';
    return `| ${n} memory, slope over the second half | ${perTen.toFixed(2)} MB / 10 min${gone ? ' (the process was gone at some point)' : ''} | ${Math.abs(perTen) <= FLAT_MB_PER_10_MIN ? 'flat' : 'not flat'} |`;
  });
  const ratios = ([undefined, 'transfer', 'swap', 'read'] as const).map((kind) => {
    const values = (rs: Row[]) =>
      rs.map((r) => p99(r, kind)).filter((x): x is number => x !== undefined && x > 0);
    const ratio = median(values(second)) / median(values(first));
    return `| p99 ${kind ?? 'all requests'}: median interval p99, second half / first half | ${ratio.toFixed(2)} (${median(values(first)).toFixed(1)} → ${median(values(second)).toFixed(1)} ms) | ${ratio <= FLAT_P99_RATIO ? 'flat' : 'not flat'} |`;
  });
  // The work a request costs: when it grows, the service does more per request as the run ages; when
  // only latency grows, something queues (or the machine is taken by another).
  const cpuOf = (rs: Row[]) => median(rs.flatMap((r) => (r.cpu ? [sum(r.cpu)!] : [])));
  const cpuRatio = cpuOf(second) / cpuOf(first);
  const verdict = [
    `| curve | figure | flat: slope within ±${FLAT_MB_PER_10_MIN} MB / 10 min, ratios <= ${FLAT_P99_RATIO} |`,
    '|---|---|---|',
    ...slopes,
    ...ratios,
    `| CPU a request: median interval, second half / first half | ${cpuRatio.toFixed(2)} (${cpuOf(first).toFixed(2)} → ${cpuOf(second).toFixed(2)} ms) | ${cpuRatio <= FLAT_P99_RATIO ? 'flat' : 'not flat'} |`,
  ].join('\n');

  const totalSent = rows.reduce((n, r) => n + r.stats.sent, 0);
  const title = `### Soak: ${o.minutes} min of mixed load at ${o.rate.toFixed(1)} requests/s (${o.found ? 'half the full rate measured first' : 'SOAK_RATE'}), ${totalSent} requests`;
  const short =
    o.minutes < 30
      ? '\n\nA run this short says nothing of an hour: the slopes are over a few minutes, the verdict is the method, not a finding.'
      : '';
  return `${title}${short}\n\n#### Load, by interval\n\n${load}\n\nLatency from when a request was due; each interval's answers by when they came (the last interval is shorter). A webhook can arrive before its request's answer is counted: confirmed − delivered can dip below 0.\n\n#### Memory (MB), by interval\n\n${memory}\n\n#### CPU, by interval\n\nThe machine's cores busy (/proc/stat; stolen: run by the host for another machine), and each process's CPU in the interval per request answered in it (/proc/<pid>/stat; PostgreSQL and Redis are every process of theirs on the machine).\n\n${cpu}\n\n#### Curves\n\n${charts}\n\n#### Verdict\n\n${verdict}`;
}

export async function soakBench(): Promise<string> {
  const scale = Number(process.env.BENCH_SCALE ?? 1);
  const minutes = Number(process.env.SOAK_MINUTES ?? 60);
  const interval = Number(
    process.env.SOAK_INTERVAL_SECONDS ?? Math.min(60, Math.max(5, (minutes * 60) / 10)),
  );
  const receiver = await startBenchReceiver();
  const metricsToken = randomBytes(16).toString('hex');
  const topology = new Topology({
    apis: 2,
    executors: 2,
    projectors: 1,
    deliveries: 1,
    env: {
      RATE_LIMIT_PER_MINUTE: '1000000',
      EXECUTOR_CONCURRENCY: '64',
      LOG_LEVEL: 'error',
      METRICS_TOKEN: metricsToken, // the API instances' /metrics (each process's heap)
      // The receiver's port only: not the API's, the chain node's or anything else on loopback.
      WEBHOOK_ALLOWED_PRIVATE_HOSTS: new URL(receiver.url).host,
      // Flags for every process's node, as the server bench takes them (e.g. --cpu-prof).
      ...(process.env.BENCH_SERVICE_NODE_ARGS && { NODE_ARGS: process.env.BENCH_SERVICE_NODE_ARGS }),
    },
  });
  const caFile = join(topology.logDir, 'webhook-ca.pem');
  writeFileSync(caFile, receiver.ca);
  topology.env.WEBHOOK_CA_FILE = caFile;
  const redis = new Redis(topology.env.REDIS_URL!);
  try {
    await topology.start();
    const urls = topology.apis.map((p) => p.url);
    const client = new Client(urls);
    const { operator, group, agents } = await fundedGroup(client, Math.max(16, Math.round(64 * scale)));
    const tokens = (
      await client.call<{ tokens: { symbol: string; mint: string }[] }>('GET', '/api/v1/tokens')
    ).body.tokens;
    const mint = (symbol: string) => tokens.find((t) => t.symbol === symbol)!.mint;
    const mix: MixSpec = {
      weights: WEIGHTS,
      swap: { from_token: 'USDC', to_token: 'SOL', from_mint: mint('USDC'), to_mint: mint('SOL') },
    };
    // Each instance gets its own half of the agents, as a load balancer keeping an agent on one would.
    const share = urls.map((_, i) => agents.filter((_, j) => j % urls.length === i));
    const tag = `soak-${Date.now()}`;
    const spread = (amount: number, phase: string) =>
      Promise.all(
        urls.map((url, i) =>
          load({
            url,
            connections: CONNECTIONS,
            amount,
            requests: { kind: 'mixed', agents: share[i]!, tag: `${tag}-${phase}`, mix },
          }),
        ),
      );

    await spread(200, 'warm'); // warm-up
    let rate = Number(process.env.SOAK_RATE ?? 0);
    const found = !rate;
    if (found) {
      const full = await spread(Math.round(2000 * scale), 'full');
      const full2xx = full.reduce((n, r) => n + r['2xx'], 0);
      const other = full.reduce((n, r) => n + r.non2xx + r.errors + r.timeouts, 0);
      if (other) console.log(`  at full rate, ${other} answers other than 2xx (not counted in the rate)`);
      rate = full2xx / Math.max(...full.map((r) => r.duration)) / 2;
      console.log(
        `  full rate of the mix: ${(rate * 2).toFixed(1)} requests/s; the soak runs at ${rate.toFixed(1)}`,
      );
    }

    // The group's transfers and swaps as webhooks, from here on (the subscription takes the events after it).
    const sub = await enact(client, [operator], 'POST', `/api/v1/orchestrator/groups/${group}/webhooks`, {
      url: receiver.url,
      event_types: ['transfer.confirmed', 'swap.confirmed'],
    });
    if (sub.body.status !== 'executed')
      throw new Error(`webhook subscription: ${sub.status} ${JSON.stringify(sub.body)}`);
    const deliveredBefore = await receiver.count();

    const rows: Row[] = [];
    let confirmedSpends = 0;
    const sampling: Promise<void>[] = [];
    let cpuBefore = cpuSnapshot(topology.pids());
    let machineBefore = { ...machineTimes(), at: Date.now() };
    const onInterval = (stats: IntervalStats) => {
      const [cpuNow, machineNow] = [cpuSnapshot(topology.pids()), { ...machineTimes(), at: Date.now() }];
      const answered = Object.values(stats.byKind).reduce((n, k) => n + k.answered, 0);
      const wall = Math.max(1, machineNow.at - machineBefore.at);
      // The run's last interval can be a moment long: a few requests and a tick of /proc (10 ms) apart.
      const cpu =
        wall >= (interval * 1000) / 2
          ? Object.fromEntries(
              Object.entries(cpuNow).map(([k, ms]) => [
                k,
                (ms - (cpuBefore[k] ?? 0)) / Math.max(1, answered),
              ]),
            )
          : undefined;
      const cores = {
        busy: (machineNow.busyMs - machineBefore.busyMs) / wall,
        stolen: (machineNow.stealMs - machineBefore.stealMs) / wall,
      };
      [cpuBefore, machineBefore] = [cpuNow, machineNow];
      const memory: Record<string, number | undefined> = {};
      for (const p of topology.procs)
        memory[p.name] = p.child?.pid ? statusMb(p.child.pid, 'VmRSS') : undefined;
      Object.assign(memory, serversMb());
      confirmedSpends += (stats.byKind.transfer?.confirmed ?? 0) + (stats.byKind.swap?.confirmed ?? 0);
      const spends = confirmedSpends;
      sampling.push(
        Promise.all([
          receiver.count(),
          redisDataMb(redis),
          Promise.all(topology.procs.map((p) => heapMb(p.url, metricsToken))),
        ]).then(([n, data, heaps]) => {
          memory['redis (data)'] = data;
          topology.procs.forEach((p, i) => (memory[`${p.name} heap`] = heaps[i]));
          const row = { stats, memory, cpu, cores, delivered: n - deliveredBefore, confirmedSpends: spends };
          rows.push(row);
          console.log(
            `  ${(stats.at / 60).toFixed(1)} min: ${stats.confirmed} 2xx, p99 ${stats.latency.p99.toFixed(1)} ms, webhooks ${row.delivered}, cores busy ${cores.busy.toFixed(2)} (stolen ${cores.stolen.toFixed(2)}), CPU ms a request ${fmt(sum(cpu), 2)}, RSS ${Object.entries(
              memory,
            )
              .map(([k, v]) => `${k} ${fmt(v)}`)
              .join(', ')}`,
          );
        }),
      );
    };
    const soak = await loadPaced(
      {
        targets: urls.map((url, i) => ({ url, agents: share[i]! })),
        rate,
        seconds: minutes * 60,
        tag: `${tag}-soak`,
        mix,
        intervalSeconds: interval,
      },
      onInterval,
    );
    await Promise.all(sampling);
    rows.sort((a, b) => a.stats.at - b.stats.at);

    // Every confirmed transfer and swap of the soak is one webhook: wait for the last ones.
    const expected = (soak.confirmedBy.transfer ?? 0) + (soak.confirmedBy.swap ?? 0);
    const deadline = Date.now() + 60_000;
    let delivered = (await receiver.count()) - deliveredBefore;
    while (delivered < expected && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 1000));
      delivered = (await receiver.count()) - deliveredBefore;
    }
    if (rows.length < 2)
      throw new Error(`only ${rows.length} intervals: run longer, or shorten SOAK_INTERVAL_SECONDS`);
    const table = report(rows, { rate, found, minutes, interval });
    const keys = await redisKeysByKind(redis, topology.prefix);
    const total = [
      `Whole run: ${soak.confirmed} 2xx (${Object.entries(soak.confirmedBy)
        .map(([k, n]) => `${k} ${n}`)
        .join(
          ', ',
        )}), other answers ${JSON.stringify(soak.others)}, p50 ${soak.latency.p50.toFixed(1)} ms, p99 ${soak.latency.p99.toFixed(1)} ms, max ${soak.latency.max.toFixed(0)} ms; ` +
        `webhooks delivered ${delivered} of ${expected} confirmed transfers and swaps (60 s allowed after the load).`,
    ].join('\n');
    const out = `${table}\n\n${total}\n\n#### Redis at the end, by key\n\n${keys}`;
    console.log(`\n${out}\n`);
    return out;
  } finally {
    redis.disconnect();
    await topology.destroy();
    await receiver.close();
  }
}
