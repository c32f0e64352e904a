/**
 * The policy preview's replay (domain/preview.ts) over 100,000 events of one group (BENCH_SCALE
 * scales it): agents spending to the group's agents and its budgeted vendor, a minute apart each, the
 * log their decisions and outcomes make (written by the deciders themselves, in memory), replayed
 * under a proposal that changes the limits, the threshold and the allow-list. The target: under a
 * second. Beside it, in the same run, the fold of the same events alone (what any replay costs).
 */
import Big from 'big.js';
import {
  decideIntent,
  decideSettleIntent,
  evolveAgent,
  evolveGroup,
  initialAgentState,
  initialGroupState,
  previewPolicy,
  streams,
  type AgentState,
  type DomainEvent,
  type GroupEvent,
  type StreamEvent,
} from '@tokenops/shared';
import { address, groupEvents, GROUP, registered, VENDOR } from '@tokenops/testing/domain/fixtures';
import { report } from './harness';

const MINUTE = 60_000;

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
    const event = registered(id, limits);
    states.set(id, evolveAgent(initialAgentState(), event));
    log.push({ stream: streams.agent(id), event });
  }
  const push = (id: string, event: DomainEvent) => {
    states.set(id, evolveAgent(states.get(id)!, event as never));
    log.push({ stream: streams.agent(id), event });
  };
  for (let n = 0; log.length < target; n++) {
    const id = ids[n % agents]!;
    const now = Date.UTC(2026, 10, 1) + n * (MINUTE / agents);
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
  const proposal = {
    per_tx_limit: new Big(80),
    daily_limit: new Big(50_000),
    approval_threshold: new Big(40),
    whitelist_remove: [VENDOR],
  };
  const time = (work: () => unknown) => {
    const start = process.hrtime.bigint();
    work();
    return Number(process.hrtime.bigint() - start) / 1e6;
  };
  time(() => previewPolicy(log, proposal, window)); // warm
  const runs = 5;
  let previewMs = Infinity;
  let preview: ReturnType<typeof previewPolicy> | undefined;
  for (let i = 0; i < runs; i++)
    previewMs = Math.min(
      previewMs,
      time(() => (preview = previewPolicy(log, proposal, window))),
    );
  let foldMs = Infinity;
  for (let i = 0; i < runs; i++)
    foldMs = Math.min(
      foldMs,
      time(() => {
        const agents = new Map<string, AgentState>();
        for (const { stream, event } of log)
          if (stream.startsWith('agent-'))
            agents.set(stream, evolveAgent(agents.get(stream) ?? initialAgentState(), event as never));
      }),
    );
  console.log(
    `  ${preview!.intents} spends judged: ${preview!.would_hold} would be held, ${JSON.stringify(preview!.would_block)} blocked`,
  );
  return report(`Policy preview (one group, ${log.length.toLocaleString('en-US')} events, in memory)`, [
    {
      name: `replay under a proposal (${preview!.intents.toLocaleString('en-US')} spends judged)`,
      value: previewMs,
      unit: 'ms',
      baseline: { name: 'the agents’ fold alone', value: foldMs },
      target: '< 1,000 ms for 100,000 events',
    },
  ]);
}
