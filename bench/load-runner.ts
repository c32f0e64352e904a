/**
 * The load generator in a process of its own (forked by `load()` in ./load.ts), so the service being
 * measured never shares an event loop with the client loading it. It takes one serialisable
 * description of a run over IPC, runs autocannon (or a steady open loop: `paced`), and answers with
 * the result and the CPU this process spent during the run. It imports nothing of the service.
 */
import autocannon from 'autocannon';
import { Pool } from 'undici';

export interface BenchAgent {
  id: string;
  key: string;
}

/** What each request is: built here, from data the parent can send. */
export type RequestsSpec =
  /** Each request a transfer of 1 from the i-th agent to the next, with a key never used before. */
  | { kind: 'transfer'; agents: BenchAgent[]; tag: string }
  /** The same request every time. */
  | {
      kind: 'fixed';
      method?: 'GET' | 'POST';
      path?: string;
      headers?: Record<string, string>;
      body?: string;
    };

export interface LoadSpec {
  url: string;
  connections: number;
  /** Requests in all; or `duration` seconds. */
  amount?: number;
  duration?: number;
  /** Requests per second over all connections (open loop); as fast as answered when absent. */
  overallRate?: number;
  requests?: RequestsSpec;
}

export interface LoadResult {
  result: autocannon.Result;
  /** CPU milliseconds (user + system) this process spent during the run. */
  cpuMs: number;
}

/** The i-th transfer request of `agents`, its idempotency key unique to this process and run. */
export function transferRequest(agents: BenchAgent[], tag: string) {
  let n = 0;
  return () => {
    const i = n++;
    const from = agents[i % agents.length]!;
    const to = agents[(i + 1) % agents.length]!;
    return {
      method: 'POST' as const,
      path: '/api/v1/transfer',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${from.key}` },
      body: JSON.stringify({ to: to.id, amount: 1, idempotency_key: `${tag}-${i}` }),
    };
  };
}

function options(spec: LoadSpec): autocannon.Options {
  const { requests, ...rest } = spec;
  const opts: autocannon.Options = { ...rest };
  if (requests?.kind === 'transfer') {
    const next = transferRequest(requests.agents, `${requests.tag}-${process.pid}`);
    opts.requests = [{ setupRequest: (r) => ({ ...r, ...next() }) }];
  } else if (requests?.kind === 'fixed') {
    const { method, headers, body } = requests;
    Object.assign(opts, {
      ...(method && { method }),
      ...(headers && { headers }),
      ...(body !== undefined && { body }),
    });
    if (requests.path) opts.url = new URL(requests.path, spec.url).toString();
  }
  return opts;
}

/**
 * A steady open loop over several API instances: transfers sent at `rate` per second, evenly spaced
 * (autocannon's `overallRate` gives each connection a budget per second, so its requests leave in a
 * burst at each second's start: not the steady arrival a "rate" means). Request k goes to target
 * k mod n, from the next of that target's own agents. Latency is counted from when the request was
 * due, so a client that fell behind shows it.
 */
export interface PacedSpec {
  targets: { url: string; agents: BenchAgent[] }[];
  rate: number;
  seconds: number;
  tag: string;
  /** Connections per target at most (64 when absent). */
  connections?: number;
}

export interface PacedResult {
  confirmed: number;
  /** Answers other than 2xx, by status, and requests that failed without one. */
  others: Record<string, number>;
  seconds: number;
  latency: { p50: number; p90: number; p99: number; max: number };
  cpuMs: number;
}

/** The value at quantile `q` of ascending `sorted` (the nearest rank); undefined when it is empty. */
export const quantile = (sorted: readonly number[], q: number): number | undefined =>
  sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];

export async function paced(spec: PacedSpec): Promise<PacedResult> {
  const cpu = process.cpuUsage();
  const targets = spec.targets.map((t) => ({
    pool: new Pool(t.url, { connections: spec.connections ?? 64 }),
    next: transferRequest(t.agents, `${spec.tag}-${process.pid}`),
  }));
  const total = Math.round(spec.rate * spec.seconds);
  const latencies: number[] = [];
  const others: Record<string, number> = {};
  let confirmed = 0;
  const started = performance.now();
  const sent: Promise<void>[] = [];
  for (let k = 0; k < total; k++) {
    const due = started + (k * 1000) / spec.rate;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((r) => setTimeout(r, wait));
    const target = targets[k % targets.length]!;
    const { method, path, headers, body } = target.next();
    sent.push(
      target.pool.request({ method, path, headers, body }).then(
        async (res) => {
          await res.body.dump();
          latencies.push(performance.now() - due);
          if (res.statusCode < 300) confirmed++;
          else others[res.statusCode] = (others[res.statusCode] ?? 0) + 1;
        },
        () => void (others.error = (others.error ?? 0) + 1),
      ),
    );
  }
  await Promise.all(sent);
  const seconds = (performance.now() - started) / 1000;
  await Promise.all(targets.map((t) => t.pool.close()));
  latencies.sort((a, b) => a - b);
  const at = (q: number) => quantile(latencies, q) ?? 0;
  const used = process.cpuUsage(cpu);
  return {
    confirmed,
    others,
    seconds,
    latency: { p50: at(0.5), p90: at(0.9), p99: at(0.99), max: latencies.at(-1) ?? 0 },
    cpuMs: (used.user + used.system) / 1000,
  };
}

/** One autocannon run (progress on the terminal), to its result and this process's CPU. */
export function run(spec: LoadSpec): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    const cpu = process.cpuUsage();
    const instance = autocannon(options(spec), (err, result) => {
      if (err) return reject(err);
      const used = process.cpuUsage(cpu);
      resolve({ result, cpuMs: (used.user + used.system) / 1000 });
    });
    autocannon.track(instance, { renderResultsTable: false, renderLatencyTable: false });
  });
}

if (require.main === module && process.send) {
  process.once('message', (spec: LoadSpec | (PacedSpec & { paced: true })) => {
    ('paced' in spec ? paced(spec) : run(spec)).then(
      (answer) => process.send!({ answer }, () => process.exit(0)),
      (err: unknown) => process.send!({ error: String(err) }, () => process.exit(1)),
    );
  });
}
