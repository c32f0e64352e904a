/**
 * Load over HTTP for the benchmarks: autocannon in a process of its own (./load-runner.ts), and funded
 * agents set up through the API.
 */
import autocannon from 'autocannon';
import { fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { createLogger } from '@tokenops/shared/process';
import { startEmbedded } from '@tokenops/api/embedded';
import { Client, invitation, signIn, type Operator } from '@tokenops/testing/harness';
import {
  autocannonRun,
  type BenchAgent,
  type IntervalStats,
  type LoadResult,
  type LoadSpec,
  type PacedResult,
  type PacedSpec,
} from './load-runner';

export type { BenchAgent, IntervalStats, LoadSpec, MixSpec, RequestKind } from './load-runner';
export { transferRequest } from './load-runner';

/**
 * One autocannon run in a forked load generator (progress on the terminal): autocannon's result, and
 * the CPU milliseconds the load generator spent (`cpuMs`).
 */
export function load(spec: LoadSpec): Promise<autocannon.Result & { cpuMs: number }> {
  return inRunner<LoadResult>(spec).then((a) => Object.assign(a.result, { cpuMs: a.cpuMs }));
}

/**
 * A steady open loop of transfers (or a mix) at a rate, in a forked load generator (load-runner.ts
 * `paced`); `onInterval` gets each interval's figures as it ends, when `spec.intervalSeconds` asks.
 */
export function loadPaced(
  spec: PacedSpec,
  onInterval?: (stats: IntervalStats) => void,
): Promise<PacedResult> {
  return inRunner<PacedResult>({ ...spec, paced: true }, onInterval);
}

function inRunner<A>(spec: object, onInterval?: (stats: IntervalStats) => void): Promise<A> {
  return new Promise((resolve, reject) => {
    const child = fork(join(__dirname, 'load-runner.ts'), [], {
      execArgv: ['-r', 'ts-node/register/transpile-only'],
      stdio: 'inherit',
    });
    let answered = false;
    child.on('message', (msg: { answer?: A; error?: string; interval?: IntervalStats }) => {
      if (msg.interval) return onInterval?.(msg.interval);
      answered = true;
      if (msg.answer) resolve(msg.answer);
      else reject(new Error(`load generator: ${msg.error}`));
    });
    child.once('error', reject);
    child.once('exit', (code) => !answered && reject(new Error(`load generator exited with ${code}`)));
    child.send(spec);
  });
}

/** One autocannon run in this very process, for benches that load the service in-process too. */
export const loadHere = (opts: autocannon.Options): Promise<autocannon.Result> => autocannonRun(opts);

export async function fundedAgents(client: Client, count: number): Promise<BenchAgent[]> {
  return (await fundedGroup(client, count)).agents;
}

/** A group with `count` agents funded with 1,000,000 USDC each; its operator and id too. */
export async function fundedGroup(
  client: Client,
  count: number,
): Promise<{ operator: Operator; group: string; agents: BenchAgent[] }> {
  const operator = await signIn(client);
  const group = (
    await client.call<{ group_config_pda: string }>('POST', '/api/v1/orchestrator/groups', {
      token: operator.token,
      body: { per_tx_limit: 1000, daily_limit: 1_000_000, hourly_tx_cap: 100_000 },
    })
  ).body.group_config_pda;
  const agents: BenchAgent[] = [];
  for (let i = 0; i < count; i++) {
    const inv = (await invitation(client, operator, group)).body;
    await client.call('POST', '/api/v1/dev/airdrop', {
      token: operator.token,
      body: { to: inv.agent_wallet_pda, amount: 1_000_000 },
    });
    const reg = (
      await client.call<{ api_key: string }>('POST', '/api/v1/register', {
        body: { invitation_code: inv.invitation_code },
      })
    ).body;
    // Never an agent without a key (a refused registration): its spends would all be 401s.
    if (!reg.api_key) throw new Error(`registration: ${JSON.stringify(reg)}`);
    agents.push({ id: inv.agent_wallet_pda, key: reg.api_key });
  }
  return { operator, group, agents };
}

/** The embedded service as the benchmarks load it: in memory, silent, no per-agent rate limit in the way. */
export const benchService = () =>
  startEmbedded({
    port: 0,
    keyEncryptionKey: randomBytes(32),
    jwtSecret: randomBytes(32),
    logger: createLogger('silent'),
    rateLimitPerMinute: 100_000_000, // the load is many requests a minute per agent, on purpose
    // and a bench sets up more agents and groups a minute than a person signs in
    signInRateLimitPerMinute: 100_000,
    operatorRateLimitPerMinute: 100_000,
  });
