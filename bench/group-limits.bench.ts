/**
 * A group's own limits on the spend path (docs/guard.md; issue 46's cost requirement). The embedded
 * default runs in this process, the load (autocannon, 32 connections, confirmed transfers of 1, each
 * to an agent of the spender's group) comes from a forked load generator, so this process's CPU is
 * the service's alone. Four fleets of 32 spending agents on the one service, loaded in interleaved
 * rounds (the order reversed every other round: this machine's speed wanders by more than the
 * differences measured, within a minute):
 *
 * - the cost a spend: 32 groups, each with one agent that spends (to the group's other agent), without
 *   group limits (the baseline) and with limits set high enough never to refuse (a daily limit of
 *   1,000,000,000, far above what the load spends; the hourly cap at the schema's maximum). One
 *   spender a group: no spend waits for another on the group's spends stream, so the difference is
 *   what a spend of a group with limits pays (that stream read, one event more in the decision's append);
 * - one busy group: 32 agents of one group with those limits, all spending, whose decisions in this
 *   process take turns on the group's one spends stream (`group-spends-<group>`), against 32 agents of
 *   one group without (and that one against the spread fleet without: what the grouping alone does).
 *
 * Figures are the medians of the rounds; BENCH_SCALE scales the rounds and the transfers of each.
 *
 * Then, in this process alone, what counting one spend more costs the group's state as its count in
 * the clock hour grows (evolveGroupSpends, as the decision's append lands; in the group's turn): the
 * load above counts a few thousand in the busy group's hour (4,200 at BENCH_SCALE=1), a group busy
 * for the whole hour many more.
 */
import {
  evolveGroupSpends,
  initialGroupSpends,
  type GroupSpendCounted,
  type GroupSpendsState,
} from '@tokenops/shared';
import { Client, enact, type Operator } from '@tokenops/testing/harness';
import { threadSnapshot } from './cpu';
import { median, report, type Figure } from './harness';
import type { Embedded } from '@tokenops/api/embedded';
import { benchService, fundedGroup, load, type BenchAgent } from './load';

const CONNECTIONS = 32;
/** High enough never to refuse: far above what the load spends, the cap at its schema's maximum. */
const LIMITS = { daily_limit: '1000000000', hourly_tx_cap: 1_000_000 };

interface Fleet {
  name: string;
  /** The spenders, each paying an agent of its own group (`to`), in turn group by group. */
  agents: BenchAgent[];
  groups: { operator: Operator; group: string }[];
  limited: boolean;
  confirmed: number;
}

/**
 * `groups` groups of `perGroup` funded agents, of which the first `spenders` of each spend (each to
 * the next agent of its group); with the high limits set on each group when `limited`.
 */
async function fleet(
  client: Client,
  name: string,
  shape: { groups: number; perGroup: number; spenders: number },
  limited: boolean,
): Promise<Fleet> {
  const made: { operator: Operator; group: string; agents: BenchAgent[] }[] = [];
  for (let g = 0; g < shape.groups; g++) {
    const { operator, group, agents } = await fundedGroup(client, shape.perGroup);
    if (limited) {
      const path = `/api/v1/orchestrator/groups/${group}/limits`;
      const set = await enact(client, [operator], 'PUT', path, LIMITS);
      if (set.status !== 200) throw new Error(`group limits: ${set.status} ${JSON.stringify(set.body)}`);
    }
    const spenders = agents
      .slice(0, shape.spenders)
      .map((a, i) => ({ ...a, to: agents[(i + 1) % agents.length]!.id }));
    made.push({ operator, group, agents: spenders });
  }
  const agents = Array.from({ length: shape.spenders }, (_, i) => made.map((m) => m.agents[i]!)).flat();
  return { name, agents, groups: made, limited, confirmed: 0 };
}

interface Round {
  rate: number;
  /** This process's CPU (the whole service: API, decisions, PGlite's thread, executor, chain) a transfer. */
  us: number;
  /** Of it, the main thread's (the event loop); the rest is the other threads' (PGlite's, GC, libuv). */
  mainUs: number;
  /** The log's appends a transfer: calls of `es_append_batches`, one transaction each (as bench/appends.ts counts them). */
  appends: number;
  p50: number;
  p99: number;
}

/** This process's main thread's CPU ms so far (/proc; 0 elsewhere). */
const mainThreadMs = () => threadSnapshot('service', process.pid)['service: main thread'] ?? 0;

/** Counts the calls of `es_append_batches` the service's PGlite gets, from now on. */
function countAppends(sql: Embedded['sql']): { readonly n: number } {
  const counter = { n: 0 };
  const query = sql.query.bind(sql);
  sql.query = ((text: string, params?: unknown[], name?: string) => {
    if (text.includes('es_append_batches')) counter.n += 1;
    return query(text, params, name);
  }) as typeof sql.query;
  return counter;
}

async function round(
  url: string,
  appends: { readonly n: number },
  f: Fleet,
  amount: number,
  tag: string,
): Promise<Round> {
  const before = process.cpuUsage();
  const mainBefore = mainThreadMs();
  const appendsBefore = appends.n;
  const run = await load({
    url,
    connections: CONNECTIONS,
    amount,
    requests: { kind: 'transfer', agents: f.agents, tag },
  });
  const cpu = process.cpuUsage(before);
  const mainMs = mainThreadMs() - mainBefore;
  const appended = appends.n - appendsBefore;
  const confirmed = run['2xx'];
  f.confirmed += confirmed;
  const others = run.non2xx + run.errors + run.timeouts;
  if (others)
    console.log(`  ${f.name}: ${others} answers other than 2xx: ${JSON.stringify(run.statusCodeStats)}`);
  return {
    rate: confirmed / (run.duration || 1),
    us: (cpu.user + cpu.system) / (confirmed || 1),
    mainUs: (mainMs * 1000) / (confirmed || 1),
    appends: appended / (confirmed || 1),
    p50: run.latency.p50,
    p99: run.latency.p99,
  };
}

/** The counts in one clock hour at which a count more is timed, and how many are timed at each. */
const HOUR_COUNTS = [1_000, 10_000, 20_000, 30_000];
const TIMED = 1000;

/**
 * CPU µs a count (group.spend_counted folded into the group's state) with `HOUR_COUNTS` counts already
 * in the hour: one every 50 ms from the hour's start, so all of them in it.
 */
function countInHour(): Map<number, number> {
  const hour = Math.floor(Date.now() / 3_600_000) * 3_600_000;
  let state: GroupSpendsState = initialGroupSpends();
  let n = 0;
  const count = (k: number) => {
    for (const end = n + k; n < end; n++) {
      const event: GroupSpendCounted = {
        type: 'group.spend_counted',
        data: {
          group_id: 'g',
          intent_id: `i-${n}`,
          agent_id: `a-${n % 32}`,
          value: '1',
          spends: true,
          at: hour + n * 50,
        },
      };
      state = evolveGroupSpends(state, event);
    }
  };
  const us = new Map<number, number>();
  for (const at of HOUR_COUNTS) {
    count(at - n);
    // CPU time, not the clock's: this machine's other work does not count, the collector's does.
    const start = process.cpuUsage();
    count(TIMED);
    const cpu = process.cpuUsage(start);
    us.set(at, (cpu.user + cpu.system) / TIMED);
  }
  return us;
}

export async function groupLimitsBench(): Promise<string> {
  const scale = Number(process.env.BENCH_SCALE ?? 1);
  const amount = Math.max(100, Math.round(500 * scale));
  const rounds = Math.max(3, Math.round(8 * scale));
  const service = await benchService();
  const appends = countAppends(service.sql);
  let spendTable: string;
  try {
    const client = new Client(service.url);
    const spread = { groups: 32, perGroup: 2, spenders: 1 };
    const one = { groups: 1, perGroup: 32, spenders: 32 };
    const fleets = [
      await fleet(client, '32 groups of 1 spender, no group limits', spread, false),
      await fleet(client, '32 groups of 1 spender, group limits', spread, true),
      await fleet(client, 'one group of 32, no group limits', one, false),
      await fleet(client, 'one group of 32, group limits', one, true),
    ];
    for (const [i, f] of fleets.entries()) await round(service.url, appends, f, 200, `warm-up-${i}`);
    const runs: Round[][] = [];
    for (let r = 0; r < rounds; r++) {
      const order = r % 2 === 0 ? [0, 1, 2, 3] : [3, 2, 1, 0];
      const row: Round[] = [];
      for (const i of order)
        row[i] = await round(service.url, appends, fleets[i]!, amount, `round-${r}-${i}`);
      runs.push(row);
      const each = fleets.map(
        (f, i) =>
          `${f.name} ${row[i]!.rate.toFixed(0)}/s ${row[i]!.us.toFixed(0)} µs (main thread ${row[i]!.mainUs.toFixed(0)}), ${row[i]!.appends.toFixed(2)} appends`,
      );
      console.log(`  round ${r + 1}: ${each.join('; ')}`);
    }

    // The limits were counted the whole run: every confirmed transfer of a group with limits is in its count.
    for (const f of fleets.filter((f) => f.limited)) {
      let counted = 0;
      for (const { operator, group } of f.groups) {
        const path = `/api/v1/orchestrator/groups/${group}/limits`;
        const limits = await client.call<{ operations_last_60m: number }>('GET', path, {
          token: operator.token,
        });
        counted += limits.body.operations_last_60m;
      }
      console.log(
        `  ${f.name}: ${counted} operations counted in the groups' streams, ${f.confirmed} confirmed`,
      );
    }

    const ms = (x: number) => Math.round(x).toLocaleString('en-US');
    const med = (i: number, pick: (r: Round) => number) => median(runs.map((row) => pick(row[i]!)));
    const ratios = (i: number, j: number, pick: (r: Round) => number) => {
      const xs = runs.map((row) => pick(row[i]!) / pick(row[j]!)).sort((a, b) => a - b);
      return { value: median(xs), unit: `x (${xs[0]!.toFixed(2)}-${xs[xs.length - 1]!.toFixed(2)})` };
    };
    const above = (i: number, j: number, pick: (r: Round) => number) =>
      runs.filter((row) => pick(row[i]!) > pick(row[j]!)).length;
    const pair = (i: number, j: number): Figure[] => [
      {
        name: `confirmed transfers/s, ${fleets[i]!.name}`,
        value: med(i, (r) => r.rate),
        unit: 'tx/s',
        baseline: { name: fleets[j]!.name, value: med(j, (r) => r.rate) },
      },
      {
        name: `each round's ratio of transfers/s, median (lowest-highest); faster in ${above(i, j, (r) => r.rate)} of ${rounds}`,
        ...ratios(i, j, (r) => r.rate),
      },
      {
        name: `service CPU per confirmed transfer, ${fleets[i]!.name}`,
        value: med(i, (r) => r.us),
        unit: 'µs',
        baseline: { name: fleets[j]!.name, value: med(j, (r) => r.us) },
      },
      {
        name: `each round's ratio of CPU per transfer, median (lowest-highest); costlier in ${above(i, j, (r) => r.us)} of ${rounds}`,
        ...ratios(i, j, (r) => r.us),
      },
      {
        name: `of it, the main thread's (the rest: PGlite's thread, GC, libuv), ${fleets[i]!.name}`,
        value: med(i, (r) => r.mainUs),
        unit: `µs (without: ${ms(med(j, (r) => r.mainUs))} µs)`,
      },
      {
        name: `the log's appends (one transaction each) a transfer, ${fleets[i]!.name}`,
        value: med(i, (r) => r.appends),
        unit: `(without: ${med(j, (r) => r.appends).toFixed(2)})`,
      },
      {
        name: `latency p50 / p99, ${fleets[i]!.name} (without: ${ms(med(j, (r) => r.p50))} / ${ms(med(j, (r) => r.p99))} ms)`,
        value: med(i, (r) => r.p50),
        unit: `ms / ${ms(med(i, (r) => r.p99))} ms`,
      },
    ];
    spendTable = report(
      `Group limits on the spend path (embedded default in process, load forked, ${CONNECTIONS} connections, ` +
        `${rounds} interleaved rounds of ${amount} transfers a fleet; medians of the rounds)`,
      [
        ...pair(1, 0),
        ...pair(3, 2),
        {
          name: `confirmed transfers/s, ${fleets[2]!.name} (the grouping alone)`,
          value: med(2, (r) => r.rate),
          unit: 'tx/s',
          baseline: { name: fleets[0]!.name, value: med(0, (r) => r.rate) },
        },
      ],
    );
  } finally {
    await service.close();
  }
  const us = countInHour();
  const first = {
    name: `${HOUR_COUNTS[0]!.toLocaleString('en-US')} in the hour`,
    value: us.get(HOUR_COUNTS[0]!)!,
  };
  const countTable = report(
    `A count more in the group's state, by its counts in the clock hour (in process, ${TIMED} timed at each)`,
    HOUR_COUNTS.map((at) => ({
      name: `with ${at.toLocaleString('en-US')} counted in the hour`,
      value: us.get(at)!,
      unit: 'µs of CPU a count',
      ...(at !== HOUR_COUNTS[0] && { baseline: first }),
    })),
  );
  return `${spendTable}\n\n${countTable}`;
}
