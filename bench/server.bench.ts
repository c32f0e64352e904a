/**
 * The server topology, as separate processes on this machine's PostgreSQL and Redis: two API
 * instances, two executors, a projector and the chain node. Confirmed transfers/s and latency over
 * HTTP (autocannon, one load-generator process per API instance at once, each with its half of the
 * agents, as a load balancer would spread them), then p50 and p99 at half that rate, arriving evenly
 * spaced (an open loop), with every stage's p50 and p99 from the spans; the baseline, in the same
 * run, is the chain node alone: the same transfers signed and sent over Solana JSON-RPC, confirmed,
 * at the same concurrency, without the service. BENCH_SERVICE_NODE_ARGS passes flags to every
 * process's node (e.g. `--cpu-prof --cpu-prof-dir=DIR`: a profile by process).
 */
import { ChainFailure, generateSigner, prepareTransfer } from '@tokenops/shared';
import { RpcChain } from '@tokenops/shared/adapters';
import { Client } from '@tokenops/testing/harness';
import { Topology } from '@tokenops/testing/topology';
import { measure, report } from './harness';
import { cpuSnapshot, cpuTable, machineBusyMs } from './cpu';
import { fundedAgents, load, loadPaced } from './load';
import { startSpanCollector } from './stages';

const CONNECTIONS = 64; // per API instance

export async function serverBench(): Promise<string> {
  const scale = Number(process.env.BENCH_SCALE ?? 1);
  // Where the time goes: the processes' spans (a sample of the intents), stage by stage (stages.ts).
  const stages = await startSpanCollector();
  const topology = await new Topology({
    apis: 2,
    executors: 2,
    projectors: 1,
    env: {
      RATE_LIMIT_PER_MINUTE: '1000000',
      EXECUTOR_CONCURRENCY: '64',
      LOG_LEVEL: 'error',
      ...(process.env.BENCH_SERVICE_NODE_ARGS && { NODE_ARGS: process.env.BENCH_SERVICE_NODE_ARGS }),
      ...stages.env(),
    },
  }).start();
  try {
    const urls = topology.apis.map((p) => p.url);
    const agents = await fundedAgents(new Client(urls), 64);
    // Each instance gets its own half of the agents, as a load balancer keeping an agent on one would.
    const tag = `server-${Date.now()}`;
    const share = urls.map((_, i) => agents.filter((_, j) => j % urls.length === i));
    const spread = (opts: { amount?: number; duration?: number; overallRate?: number }) =>
      Promise.all(
        urls.map((url, i) =>
          load({
            url,
            connections: CONNECTIONS,
            ...opts,
            requests: { kind: 'transfer', agents: share[i]!, tag },
          }),
        ),
      );

    await spread({ amount: 500 }); // warm-up
    await stages.settled();
    stages.reset();
    const pids = topology.pids();
    const cpuBefore = cpuSnapshot({ ...pids, 'bench (this process)': process.pid });
    const busyBefore = machineBusyMs();
    const loadStart = Date.now();
    const full = await spread({ amount: Math.round(4000 * scale) });
    const cpuAfter = cpuSnapshot({ ...pids, 'bench (this process)': process.pid });
    const busy = machineBusyMs() - busyBefore;
    const loadSeconds = (Date.now() - loadStart) / 1000;
    const confirmed = full.reduce((n, r) => n + r['2xx'], 0);
    const others = full.reduce((n, r) => n + r.non2xx + r.errors + r.timeouts, 0);
    const statuses: Record<string, number> = {};
    for (const r of full)
      for (const [code, { count = 0 }] of Object.entries(r.statusCodeStats ?? {}))
        if (!code.startsWith('2')) statuses[code] = (statuses[code] ?? 0) + count;
    if (others)
      console.log(
        `  answers other than 2xx: ${JSON.stringify(statuses)}, errors ${full.map((r) => r.errors)}`,
      );
    const rate = confirmed / Math.max(...full.map((r) => r.duration));
    const p50 = Math.max(...full.map((r) => r.latency.p50));
    const p99 = Math.max(...full.map((r) => r.latency.p99));

    // Where a queue forms at full load: the stages of the sampled intents.
    await stages.settled();
    console.log(`\nAt full load: ${stages.table()}\n`);

    // Half that load, at a steady rate (evenly spaced, split between the instances); its stages from the spans.
    stages.reset();
    const half = await loadPaced({
      targets: urls.map((url, i) => ({ url, agents: share[i]! })),
      rate: rate / 2,
      seconds: Math.max(5, Math.round(10 * scale)),
      tag: `${tag}-half`,
    });
    if (Object.keys(half.others).length)
      console.log(`  at half load, other answers: ${JSON.stringify(half.others)}`);
    const halfRate = half.confirmed / half.seconds;
    const halfP50 = half.latency.p50;
    const halfP99 = half.latency.p99;
    await stages.settled();
    console.log(`\nAt half load: ${stages.table()}\n`);

    // Baseline: the chain node alone, same transfers over JSON-RPC, same concurrency.
    const chain = RpcChain.local(topology.chain.url, topology.env.CHAIN_SEED);
    const usdc = chain.tokens[0]!;
    const senders = Array.from({ length: 64 }, () => generateSigner());
    const recipients = Array.from({ length: 64 }, () => generateSigner());
    for (const s of [...senders, ...recipients]) {
      await chain.fund(s.address, 10_000_000_000n);
      await chain.mintTo(s.address, usdc.mint, 10n ** 12n, `fund-${s.address}`);
    }
    const n = Math.round(4000 * scale);
    const alone = await measure('chain node alone: sign, send, confirm', n, CONNECTIONS * 2, async (w, i) => {
      const transfer = {
        from: senders[w % senders.length]!,
        to: recipients[i % recipients.length]!.address,
        mint: usdc.mint,
        decimals: usdc.decimals,
        net: 999_000n,
        fee: 1_000n,
        treasury: chain.treasury,
        reference: `alone-${i}`,
      };
      // Signed anew when the node has moved to a new blockhash meanwhile, as the executor does.
      for (let attempt = 1; ; attempt++) {
        try {
          return void (await chain.submit(await prepareTransfer(chain, transfer)));
        } catch (err) {
          if (!(err instanceof ChainFailure) || !/Blockhash/.test(err.error) || attempt >= 3) throw err;
        }
      }
    });

    console.log(
      `\nCPU by process during the full load:\n\n${cpuTable(cpuBefore, cpuAfter, confirmed, loadSeconds, {
        'load generators': full.reduce((n, r) => n + r.cpuMs, 0),
      })}\n`,
    );
    return report('Server topology (2 API, 2 executors, projector, chain node; PostgreSQL + Redis)', [
      {
        name: `confirmed transfers/s (64 agents, ${CONNECTIONS * 2} connections, ${confirmed} confirmed, ${others} other)`,
        value: rate,
        unit: 'tx/s',
        baseline: { name: 'chain node alone over JSON-RPC', value: alone },
        target: '>= 0.8x, or the machine CPU-bound',
      },
      {
        name: 'cores busy during the full load (the whole machine, /proc/stat)',
        value: busy / 1000 / loadSeconds,
        unit: 'of 2',
        target: '>= 1.8 when under 0.8x',
      },
      { name: 'machine CPU per confirmed transfer at full load', value: busy / confirmed, unit: 'ms' },
      { name: 'latency p50 at full load', value: p50, unit: 'ms' },
      { name: 'latency p99 at full load', value: p99, unit: 'ms' },
      { name: `rate held at half load (asked ${Math.round(rate / 2)} tx/s)`, value: halfRate, unit: 'tx/s' },
      { name: 'latency p50 at half load', value: halfP50, unit: 'ms', target: '<= 30 ms' },
      { name: 'latency p99 at half load', value: halfP99, unit: 'ms', target: '<= 100 ms' },
    ]);
  } finally {
    await topology.destroy();
    await stages.close();
  }
}
