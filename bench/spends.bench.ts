/**
 * Every spend on the one pipeline, over HTTP on the embedded default (autocannon, loopback, same
 * process): confirmed swaps/s and deposits/s beside confirmed transfers/s measured in the same run,
 * with the same agents, connections and request count. Target: each at least 0.8x transfers/s.
 *
 * Swaps all trade on the one local pool (USDC/SOL), whose swaps the executor builds and lands one at
 * a time (the output is fixed in the transaction from the reserves read just before). So the
 * report also says, from the log, how long each swap held the pool: the time between two swaps'
 * confirmations, and the part of it from recording the signed transaction to its confirmation.
 */
import type { RecordedEvent } from '@tokenops/shared';
import { Client, enact } from '@tokenops/testing/harness';
import { benchService, fundedGroup, loadHere as run, transferRequest, type BenchAgent } from './load';
import { report } from './harness';

type Body = Record<string, unknown>;

/** Requests of the agents in turn, each with a key never used before. */
function requests(agents: BenchAgent[], path: string, tag: string, body: (i: number) => Body) {
  let n = 0;
  return () => {
    const i = n++;
    const from = agents[i % agents.length]!;
    return {
      method: 'POST' as const,
      path,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${from.key}` },
      body: JSON.stringify({ ...body(i), idempotency_key: `${tag}-${i}` }),
    };
  };
}

/** Per swap, from the log: the gap between consecutive confirmations, and submission to confirmation (ms). */
function swapTimeline(events: RecordedEvent[], since: number) {
  const swaps = new Set<string>();
  const submitted = new Map<string, number>();
  const confirmed: { id: string; at: number }[] = [];
  for (const e of events) {
    const d = e.data as { intent_id?: string; action?: string; at?: number };
    if (e.type === 'intent.accepted' && d.action === 'swap') swaps.add(d.intent_id!);
    if (!d.intent_id || !swaps.has(d.intent_id) || (d.at ?? 0) < since) continue;
    if (e.type === 'intent.submitting') submitted.set(d.intent_id, d.at!);
    if (e.type === 'intent.confirmed') confirmed.push({ id: d.intent_id, at: d.at! });
  }
  confirmed.sort((a, b) => a.at - b.at);
  const gaps = confirmed.slice(1).map((c, i) => c.at - confirmed[i]!.at);
  const landing = confirmed.filter((c) => submitted.has(c.id)).map((c) => c.at - submitted.get(c.id)!);
  const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);
  return { gap: mean(gaps), landing: mean(landing) };
}

export async function spendsBench(): Promise<string> {
  const scale = Number(process.env.BENCH_SCALE ?? 1);
  const service = await benchService();
  const client = new Client(service.url);
  const { operator, group, agents } = await fundedGroup(client, 32);
  const tokens = service.ctx.chain.tokens;
  const usdc = tokens.find((t) => t.symbol === 'USDC')!;
  const sol = tokens.find((t) => t.symbol === 'SOL')!;
  const program = service.ctx.venues[0]!.program;
  await enact(client, [operator], 'POST', `/api/v1/orchestrator/groups/${group}/whitelist`, {
    address: program,
    type: 2,
    label: 'local venue',
  });

  const kinds = {
    transfers: transferRequest(agents, 'transfer'),
    // 1 USDC for SOL: a millionth of the pool, the price barely moves over the run.
    swaps: requests(agents, '/api/v1/swap', 'swap', () => ({
      from_token: 'USDC',
      to_token: 'SOL',
      from_mint: usdc.mint,
      to_mint: sol.mint,
      amount: 1,
    })),
    deposits: requests(agents, '/api/v1/deposit', 'deposit', () => ({ lending_program: program, amount: 1 })),
  };
  const amount = Math.round(3000 * scale);
  const measured: Record<
    string,
    { rate: number; confirmed: number; other: number; p50: number; p99: number }
  > = {};
  for (const [name, next] of Object.entries(kinds)) {
    // Warm-up of this path, then the measured run.
    await run({
      url: service.url,
      connections: 32,
      amount: 150,
      requests: [{ setupRequest: (r) => ({ ...r, ...next() }) }],
    });
    const result = await run({
      url: service.url,
      connections: 32,
      amount,
      requests: [{ setupRequest: (r) => ({ ...r, ...next() }) }],
    });
    measured[name] = {
      rate: result['2xx'] / (result.duration || 1),
      confirmed: result['2xx'],
      other: result.non2xx,
      p50: result.latency.p50,
      p99: result.latency.p99,
    };
  }
  const since = Date.now() - 3_600_000;
  const timeline = swapTimeline(await service.ctx.store.readAll({ maxCount: 10_000_000 }), since);
  await service.close();

  const t = measured.transfers!;
  const s = measured.swaps!;
  const d = measured.deposits!;
  const transfers = { name: 'confirmed transfers/s, same run', value: t.rate };
  return report(
    'Every spend on the pipeline (embedded default, autocannon on loopback, 32 agents, 32 connections)',
    [
      {
        name: `confirmed transfers/s (${t.confirmed} confirmed, ${t.other} other)`,
        value: t.rate,
        unit: 'tx/s',
      },
      {
        name: `confirmed swaps/s (${s.confirmed} confirmed, ${s.other} other)`,
        value: s.rate,
        unit: 'tx/s',
        baseline: transfers,
        target: '>= 0.8x transfers/s',
      },
      {
        name: `confirmed deposits/s (${d.confirmed} confirmed, ${d.other} other)`,
        value: d.rate,
        unit: 'tx/s',
        baseline: transfers,
        target: '>= 0.8x transfers/s',
      },
      { name: 'latency p50 / p99: transfer', value: t.p50, unit: `ms / ${t.p99} ms` },
      { name: 'latency p50 / p99: swap', value: s.p50, unit: `ms / ${s.p99} ms` },
      { name: 'latency p50 / p99: deposit', value: d.p50, unit: `ms / ${d.p99} ms` },
      {
        name: 'swap: time between two swaps’ confirmations (the pool is held)',
        value: timeline.gap,
        unit: 'ms',
      },
      {
        name: 'swap: from recording the signed swap to its confirmation',
        value: timeline.landing,
        unit: 'ms',
      },
    ],
  );
}
