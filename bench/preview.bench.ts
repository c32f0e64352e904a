/**
 * The policy preview's replay (domain/preview.ts) over 100,000 events of one group (BENCH_SCALE
 * scales it): agents spending to the group's agents and its budgeted vendor, a minute apart each, the
 * log their decisions and outcomes make (written by the deciders themselves, in memory), replayed
 * under a proposal that changes the limits, the threshold and the allow-list. The target: under a
 * second. Beside it, in the same run, the fold of the same events alone (what any replay costs), and
 * the guard's case: the same events under the same proposal with every kind of guard rule and group
 * limits (issue 46), against the case without them, and the agents' fold with the guard's history
 * (which only a replay under rules folds) against the fold without it.
 */
import { loadavg } from 'node:os';
import Big from 'big.js';
import {
  decideIntent,
  decideSettleIntent,
  evolveAgent,
  evolveAgentUnguarded,
  evolveGroup,
  initialAgentState,
  initialGroupState,
  previewPolicy,
  streams,
  type AgentState,
  type DomainEvent,
  type GroupEvent,
  type PolicyProposal,
  type StreamEvent,
} from '@tokenops/shared';
import { address, groupEvents, GROUP, registered, VENDOR } from '@tokenops/testing/domain/fixtures';
import { report } from './harness';

const MINUTE = 60_000;
const START = Date.UTC(2026, 10, 1);

/** `target` events of one group: `agents` agents, each spending in turn, every other spend confirmed. */
function groupLog(target: number, agents = 50): StreamEvent[] {
  const ids = Array.from({ length: agents }, (_, i) => address(`bench-agent-${i}`));
  const made: GroupEvent[] = [
    ...groupEvents(),
    ...ids.map((id, i): GroupEvent => ({
      type: 'whitelist.entry_added',
      data: { group_id: GROUP, entry_id: `entry-bench-${i}`, address: id, type: 0, at: 0 },
    })),
  ];
  const log: StreamEvent[] = made.map((event) => ({ stream: streams.group(GROUP), event }));
  const group = made.reduce(evolveGroup, initialGroupState());
  const states = new Map<string, AgentState>();
  const limits = { per_tx_limit: '100', daily_limit: '100000', hourly_tx_cap: 1000 };
  for (const id of ids) {
    // Registered an hour before the first spend (the guard's history measures from the latest event).
    const event = registered(id, limits, START - 60 * MINUTE);
    states.set(id, evolveAgent(initialAgentState(), event));
    log.push({ stream: streams.agent(id), event });
  }
  const push = (id: string, event: DomainEvent) => {
    states.set(id, evolveAgent(states.get(id)!, event as never));
    log.push({ stream: streams.agent(id), event });
  };
  for (let n = 0; log.length < target; n++) {
    const id = ids[n % agents]!;
    const now = START + n * (MINUTE / agents);
    const amount = new Big(1 + (n % 97));
    const to = ids[(n + 1) % agents]!;
    const d = decideIntent(
      {
        intent_id: `bench-${n}`,
        action: 'transfer',
        amount,
        value: amount,
        mint: group.baseMint,
        decimals: 6,
        counterparty: n % 10 === 0 ? VENDOR : to,
        now,
      },
      { group, agent: states.get(id)! },
    );
    for (const e of d.agentEvents) push(id, e);
    if (d.accepted && n % 2 === 0)
      for (const e of decideSettleIntent(
        { intent_id: `bench-${n}`, outcome: { status: 'confirmed', tx_sig: `sig-${n}` }, now },
        states.get(id)!,
      ))
        push(id, e);
  }
  return log;
}

export async function previewBench(): Promise<string> {
  const scale = Number(process.env.BENCH_SCALE ?? 1);
  const log = groupLog(Math.round(100_000 * scale));
  const first = (
    log.find((e) => 'at' in e.event.data && e.event.type === 'intent.accepted')!.event.data as {
      at: number;
    }
  ).at;
  const window = { from: first, to: Number.MAX_SAFE_INTEGER };
  const proposal: PolicyProposal = {
    per_tx_limit: new Big(80),
    daily_limit: new Big(50_000),
    approval_threshold: new Big(40),
    whitelist_remove: [VENDOR],
  };
  // Every kind of rule. On this log the holds trip now and then (new counterparties and tokens at first
  // spends, bursts, the quiet hours two hours of the night); velocity and refusals never do (its agents
  // spend evenly and were never refused), but are judged at every spend and every refusal. Group
  // limits whose refusals the agents' own limits come before here: their room is computed at every
  // spend all the same.
  const guarded: PolicyProposal = {
    ...proposal,
    guard: [
      { kind: 'velocity', factor: 3, min_count: 10, action: 'hold' },
      { kind: 'burst', window_seconds: 600, fraction: '0.004', action: 'hold' },
      { kind: 'new_counterparty', action: 'hold' },
      { kind: 'new_token', action: 'hold' },
      { kind: 'refusals', count: 1000, window_seconds: 86_400, action: 'freeze_agent' },
      { kind: 'quiet_hours', from: '02:00', to: '04:00', time_zone: 'Europe/Paris', action: 'hold' },
    ],
    group_limits: { daily_limit: new Big(3_000_000), hourly_tx_cap: 3_000 },
  };
  // The machine is shared: the CPU time of each run is printed beside the wall time the table shows.
  const cpuMs = { preview: Infinity, guard: Infinity };
  let lastCpu = 0;
  const time = (work: () => unknown) => {
    const [start, cpu] = [process.hrtime.bigint(), process.cpuUsage()];
    work();
    const used = process.cpuUsage(cpu);
    lastCpu = (used.user + used.system) / 1000;
    return Number(process.hrtime.bigint() - start) / 1e6;
  };
  time(() => previewPolicy(log, proposal, window)); // warm
  time(() => previewPolicy(log, guarded, window));
  const runs = 5;
  let previewMs = Infinity;
  let guardMs = Infinity;
  let preview: ReturnType<typeof previewPolicy> | undefined;
  let guardPreview: ReturnType<typeof previewPolicy> | undefined;
  // In turns, so that both cases meet the same load.
  for (let i = 0; i < runs; i++) {
    previewMs = Math.min(
      previewMs,
      time(() => (preview = previewPolicy(log, proposal, window))),
    );
    cpuMs.preview = Math.min(cpuMs.preview, lastCpu);
    guardMs = Math.min(
      guardMs,
      time(() => (guardPreview = previewPolicy(log, guarded, window))),
    );
    cpuMs.guard = Math.min(cpuMs.guard, lastCpu);
  }
  // The agents' fold alone, as the replay without rules folds them (without the guard's history,
  // which no spend reads then) and as the replay under rules does (with it).
  const fold = (evolve: typeof evolveAgent) => () => {
    const agents = new Map<string, AgentState>();
    for (const { stream, event } of log)
      if (stream.startsWith('agent-'))
        agents.set(stream, evolve(agents.get(stream) ?? initialAgentState(), event as never));
  };
  let foldMs = Infinity;
  let guardFoldMs = Infinity;
  for (let i = 0; i < runs; i++) {
    foldMs = Math.min(foldMs, time(fold(evolveAgentUnguarded)));
    guardFoldMs = Math.min(guardFoldMs, time(fold(evolveAgent)));
  }
  console.log(
    `  ${preview!.intents} spends judged: ${preview!.would_hold} would be held, ${JSON.stringify(preview!.would_block)} blocked`,
  );
  const g = guardPreview!;
  console.log(
    `  with the guard: ${g.would_hold} would be held, ${JSON.stringify(g.would_block)} blocked, ` +
      `${g.would_freeze.length} agents frozen`,
  );
  console.log(
    `  CPU time, least of ${runs}: replay ${Math.round(cpuMs.preview)} ms, with the guard ${Math.round(cpuMs.guard)} ms` +
      ` (${(cpuMs.guard / cpuMs.preview).toFixed(2)}x); load average ${loadavg()[0]!.toFixed(1)}`,
  );
  return report(`Policy preview (one group, ${log.length.toLocaleString('en-US')} events, in memory)`, [
    {
      name: `replay under a proposal (${preview!.intents.toLocaleString('en-US')} spends judged)`,
      value: previewMs,
      unit: 'ms',
      baseline: { name: 'the agents’ fold alone (without the guard’s history)', value: foldMs },
      target: '< 1,000 ms for 100,000 events',
    },
    {
      name: 'the same under every kind of guard rule and group limits',
      value: guardMs,
      unit: 'ms',
      baseline: { name: 'the replay without them', value: previewMs },
      target: '< 1,000 ms for 100,000 events',
    },
    {
      name: 'the agents’ fold with the guard’s history (what the replay under rules folds)',
      value: guardFoldMs,
      unit: 'ms',
      baseline: { name: 'the fold without it', value: foldMs },
    },
  ]);
}
