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
  /** Whom its transfers pay (an agent of its group): the next agent of the list when absent. */
  to?: string;
}

/** What each request is: built here, from data the parent can send. */
export type RequestsSpec =
  /** Each request a transfer of 1 from the i-th agent to its `to` (else the next), with a key never used before. */
  | { kind: 'transfer'; agents: BenchAgent[]; tag: string }
  /** Transfers, swaps and reads of the agents in turn, in the proportions of `mix` (`mixedRequest`). */
  | { kind: 'mixed'; agents: BenchAgent[]; tag: string; mix: MixSpec }
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

/**
 * The i-th transfer request of `agents` (a transfer of 1 to the agent's `to`, else to the next agent),
 * its idempotency key unique to this process and run.
 */
export function transferRequest(agents: BenchAgent[], tag: string) {
  let n = 0;
  return () => {
    const i = n++;
    const from = agents[i % agents.length]!;
    const to = from.to ?? agents[(i + 1) % agents.length]!.id;
    return {
      method: 'POST' as const,
      path: '/api/v1/transfer',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${from.key}` },
      body: JSON.stringify({ to, amount: 1, idempotency_key: `${tag}-${i}` }),
    };
  };
}

/** What a request is, for latency by kind: a read is GET /balance, /limits or /history in turn. */
export type RequestKind = 'transfer' | 'swap' | 'read';

/** A mixed load: how many of each kind in every `sum of weights` requests, and the swap's tokens. */
export interface MixSpec {
  weights: Partial<Record<RequestKind, number>>;
  /** Each swap sells 1 of `from` for `to` (symbols and mints as GET /api/v1/tokens lists them). */
  swap: { from_token: string; to_token: string; from_mint: string; to_mint: string };
}

/**
 * One cycle of kinds in the proportions of `weights`, spread evenly (smooth weighted round robin, as
 * nginx balances): { transfer: 3, read: 1 } gives transfer, transfer, read, transfer. Pure.
 */
export function kindCycle(weights: Partial<Record<RequestKind, number>>): RequestKind[] {
  const entries = Object.entries(weights).filter(([, w]) => w! > 0) as [RequestKind, number][];
  const total = entries.reduce((n, [, w]) => n + w, 0);
  const current = new Map(entries.map(([k]) => [k, 0]));
  const cycle: RequestKind[] = [];
  for (let i = 0; i < total; i++) {
    for (const [k, w] of entries) current.set(k, current.get(k)! + w);
    const [best] = [...current.entries()].reduce((a, b) => (b[1] > a[1] ? b : a));
    current.set(best, current.get(best)! - total);
    cycle.push(best);
  }
  return cycle;
}

const READS = ['/api/v1/balance', '/api/v1/limits', '/api/v1/history?limit=20'];

/**
 * The i-th request of a mixed load: its kind from the cycle of `mix`, from the i-th agent (a transfer
 * to the next one), writes with a key never used before; each with its kind.
 */
export function mixedRequest(agents: BenchAgent[], tag: string, mix: MixSpec) {
  const cycle = kindCycle(mix.weights);
  const transfer = transferRequest(agents, `${tag}-t`);
  let n = 0;
  let reads = 0;
  return () => {
    const i = n++;
    const kind = cycle[i % cycle.length]!;
    const from = agents[i % agents.length]!;
    const auth = { authorization: `Bearer ${from.key}` };
    if (kind === 'transfer') return { kind, ...transfer() };
    if (kind === 'read')
      return { kind, method: 'GET' as const, path: READS[reads++ % READS.length]!, headers: auth };
    return {
      kind,
      method: 'POST' as const,
      path: '/api/v1/swap',
      headers: { 'content-type': 'application/json', ...auth },
      body: JSON.stringify({ ...mix.swap, amount: 1, idempotency_key: `${tag}-s-${i}` }),
    };
  };
}

function options(spec: LoadSpec): autocannon.Options {
  const { requests, ...rest } = spec;
  const opts: autocannon.Options = { ...rest };
  if (requests?.kind === 'transfer') {
    const next = transferRequest(requests.agents, `${requests.tag}-${process.pid}`);
    opts.requests = [{ setupRequest: (r) => ({ ...r, ...next() }) }];
  } else if (requests?.kind === 'mixed') {
    const next = mixedRequest(requests.agents, `${requests.tag}-${process.pid}`, requests.mix);
    opts.requests = [
      {
        setupRequest: (r) => {
          const { kind: _kind, ...request } = next();
          return { ...r, body: undefined, ...request };
        },
      },
    ];
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
 * A steady open loop over several API instances: transfers (or the requests of `mix`) sent at `rate`
 * per second, evenly spaced (autocannon's `overallRate` gives each connection a budget per second, so
 * its requests leave in a burst at each second's start: not the steady arrival a "rate" means).
 * Request k goes to target k mod n, from the next of that target's own agents. Latency is counted
 * from when the request was due, so a client that fell behind shows it. With `intervalSeconds`, the
 * answers of each interval (by when they came) are summed up as it ends, for a soak's curves.
 */
export interface PacedSpec {
  targets: { url: string; agents: BenchAgent[] }[];
  rate: number;
  seconds: number;
  tag: string;
  /** Connections per target at most (64 when absent). */
  connections?: number;
  /** Transfers, swaps and reads in these proportions; transfers only when absent. */
  mix?: MixSpec;
  /** Every so many seconds, an `IntervalStats` of the answers since the last one. */
  intervalSeconds?: number;
}

export interface Latency {
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

export interface PacedResult {
  confirmed: number;
  /** Answers other than 2xx, by status, and requests that failed without one. */
  others: Record<string, number>;
  seconds: number;
  latency: Latency;
  /** 2xx answers by kind of request. */
  confirmedBy: Partial<Record<RequestKind, number>>;
  cpuMs: number;
}

/** The answers that came in one interval of a paced run. */
export interface IntervalStats {
  /** Seconds from the start of the run to the end of this interval. */
  at: number;
  /** Requests sent in the interval, and not answered at its end (all sent so far). */
  sent: number;
  inFlight: number;
  confirmed: number;
  others: Record<string, number>;
  latency: Latency;
  /** Answers and latency by kind of request. */
  byKind: Partial<Record<RequestKind, { answered: number; confirmed: number; latency: Latency }>>;
}

/** The value at quantile `q` of ascending `sorted` (the nearest rank); undefined when it is empty. */
export const quantile = (sorted: readonly number[], q: number): number | undefined =>
  sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];

/** p50, p90, p99 and max of latencies (sorts them in place); zeros when there are none. */
export function latencyOf(latencies: number[]): Latency {
  latencies.sort((a, b) => a - b);
  const at = (q: number) => quantile(latencies, q) ?? 0;
  return { p50: at(0.5), p90: at(0.9), p99: at(0.99), max: latencies.at(-1) ?? 0 };
}

/** Answers gathered for one interval (or the whole run): latencies by kind, statuses. */
class Tally {
  confirmed = 0;
  readonly others: Record<string, number> = {};
  readonly byKind: Partial<Record<RequestKind, number[]>> = {};
  readonly confirmedBy: Partial<Record<RequestKind, number>> = {};

  answered(kind: RequestKind, ms: number, status: number): void {
    (this.byKind[kind] ??= []).push(ms);
    if (status < 300) {
      this.confirmed++;
      this.confirmedBy[kind] = (this.confirmedBy[kind] ?? 0) + 1;
    } else this.others[status] = (this.others[status] ?? 0) + 1;
  }

  failed(): void {
    this.others.error = (this.others.error ?? 0) + 1;
  }

  all(): number[] {
    return Object.values(this.byKind).flat();
  }
}

export async function paced(
  spec: PacedSpec,
  onInterval: (stats: IntervalStats) => void = () => {},
): Promise<PacedResult> {
  const cpu = process.cpuUsage();
  const targets = spec.targets.map((t) => {
    const tag = `${spec.tag}-${process.pid}`;
    const transfer = transferRequest(t.agents, tag);
    return {
      pool: new Pool(t.url, { connections: spec.connections ?? 64 }),
      next: spec.mix
        ? mixedRequest(t.agents, tag, spec.mix)
        : () => ({ kind: 'transfer' as const, ...transfer() }),
    };
  });
  const total = Math.round(spec.rate * spec.seconds);
  const run = new Tally();
  let interval = new Tally();
  let sentInInterval = 0;
  const inFlight = new Set<Promise<void>>();
  const started = performance.now();
  const endInterval = () => {
    const done = interval;
    interval = new Tally();
    const byKind = Object.fromEntries(
      Object.entries(done.byKind).map(([k, ms]) => [
        k,
        { answered: ms.length, confirmed: done.confirmedBy[k as RequestKind] ?? 0, latency: latencyOf(ms) },
      ]),
    );
    onInterval({
      at: (performance.now() - started) / 1000,
      sent: sentInInterval,
      inFlight: inFlight.size,
      confirmed: done.confirmed,
      others: done.others,
      latency: latencyOf(done.all()),
      byKind,
    });
    sentInInterval = 0;
  };
  const ticker = spec.intervalSeconds && setInterval(endInterval, spec.intervalSeconds * 1000);
  for (let k = 0; k < total; k++) {
    const due = started + (k * 1000) / spec.rate;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((r) => setTimeout(r, wait));
    const target = targets[k % targets.length]!;
    const { kind, method, path, headers, body } = target.next();
    sentInInterval++;
    // Only those in flight are held: an hour's requests are not kept to the end.
    const request: Promise<void> = target.pool.request({ method, path, headers, body }).then(
      async (res) => {
        await res.body.dump();
        const ms = performance.now() - due;
        for (const t of [run, interval]) t.answered(kind, ms, res.statusCode);
      },
      () => [run, interval].forEach((t) => t.failed()),
    );
    inFlight.add(request);
    void request.finally(() => inFlight.delete(request));
  }
  await Promise.all(inFlight);
  if (ticker) {
    clearInterval(ticker);
    endInterval(); // the last one, shorter: what came since the last tick
  }
  const seconds = (performance.now() - started) / 1000;
  await Promise.all(targets.map((t) => t.pool.close()));
  const used = process.cpuUsage(cpu);
  return {
    confirmed: run.confirmed,
    others: run.others,
    seconds,
    latency: latencyOf(run.all()),
    confirmedBy: run.confirmedBy,
    cpuMs: (used.user + used.system) / 1000,
  };
}

/**
 * One autocannon run in this process (progress on the terminal). A run of an `amount` of requests
 * lasts until its last answer: autocannon ends it, and times it, only at its next one-second tick,
 * which made a 3-second run up to a third too long (900 transfers answered in 2.6 s reported as
 * 3.02 s); its `duration` is the last answer's time instead.
 */
export function autocannonRun(opts: autocannon.Options): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    let lastAnswer = started;
    const instance = autocannon(opts, (err, result) => {
      if (err) return reject(err);
      if (opts.amount !== undefined) result.duration = (lastAnswer - started) / 1000;
      resolve(result);
    });
    instance.on('response', () => (lastAnswer = performance.now()));
    autocannon.track(instance, { renderResultsTable: false, renderLatencyTable: false });
  });
}

/** One autocannon run, to its result and this process's CPU. */
export async function run(spec: LoadSpec): Promise<LoadResult> {
  const cpu = process.cpuUsage();
  const result = await autocannonRun(options(spec));
  const used = process.cpuUsage(cpu);
  return { result, cpuMs: (used.user + used.system) / 1000 };
}

if (require.main === module && process.send) {
  process.once('message', (spec: LoadSpec | (PacedSpec & { paced: true })) => {
    const interval = (stats: IntervalStats) => process.send!({ interval: stats });
    ('paced' in spec ? paced(spec, interval) : run(spec)).then(
      (answer) => process.send!({ answer }, () => process.exit(0)),
      (err: unknown) => process.send!({ error: String(err) }, () => process.exit(1)),
    );
  });
}
