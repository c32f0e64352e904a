/**
 * The load generator in a process of its own (forked by `load()` in ./load.ts), so the service being
 * measured never shares an event loop with the client loading it. It takes one serialisable
 * description of a run over IPC, runs autocannon, and answers with autocannon's result and the CPU
 * this process spent during the run. It imports nothing of the service.
 */
import autocannon from 'autocannon';

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
  process.once('message', (spec: LoadSpec) => {
    run(spec).then(
      (answer) => process.send!({ answer }, () => process.exit(0)),
      (err: unknown) => process.send!({ error: String(err) }, () => process.exit(1)),
    );
  });
}
