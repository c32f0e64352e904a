import Big from 'big.js';
import {
  AGENT_A,
  AGENT_B,
  GROUP,
  LIMITS,
  MINUTE,
  T0,
  VENDOR,
  address,
  groupEvents,
  registered,
  transfer,
} from '@tokenops/testing/domain/fixtures';
import { evolveAgent, foldAgent, initialAgentState, type AgentState } from './agent';
import { foldGroup } from './group';
import { decideIntent, decideSettleIntent } from './intent';
import { streams, type AgentEvent, type DomainEvent, type GroupEvent, type GuardRule } from './events';
import { previewPolicy, type StreamEvent } from './preview';
import { DAY_MS, HOUR_MS } from './time';

/** The log of agent A spending `amounts` to agent B then the vendor, a minute apart, as the decider records it. */
function history(amounts: string[]): StreamEvent[] {
  const log: StreamEvent[] = groupEvents().map((event) => ({ stream: streams.group(GROUP), event }));
  const agentEvents: AgentEvent[] = [registered(AGENT_A)];
  log.push({ stream: streams.agent(AGENT_A), event: agentEvents[0]! });
  amounts.forEach((amount, i) => {
    const cmd = transfer(amount, { counterparty: i % 2 ? VENDOR : AGENT_B, now: T0 + i * MINUTE });
    const d = decideIntent(cmd, { group: foldGroup(groupEvents()), agent: foldAgent(agentEvents) });
    for (const event of d.agentEvents) {
      agentEvents.push(event);
      log.push({ stream: streams.agent(AGENT_A), event: event as DomainEvent });
    }
  });
  return log;
}
const window = { from: T0, to: T0 + 60 * MINUTE };

describe('the policy preview', () => {
  const log = history(['10', '60', '95', '150', '20']);

  it('replays the window as it was: nothing changes under the policy it had', () => {
    const same = previewPolicy(log, {}, window);
    // 150 was blocked (per-tx 100) then, and is again; the others pass.
    expect(same).toMatchObject({ intents: 5, would_hold: 0, would_block: { per_tx_limit_exceeded: 1 } });
    expect(same.examples).toEqual([]);
  });

  it('counts what a threshold would hold and a lower per-tx limit would block, with examples', () => {
    const p = previewPolicy(log, { approval_threshold: new Big(50), per_tx_limit: new Big(90) }, window);
    expect(p).toMatchObject({ intents: 5, would_hold: 1, would_block: { per_tx_limit_exceeded: 2 } });
    expect(p.examples.map((x) => [x.amount, x.was, x.would])).toEqual([
      ['60', 'accepted', 'held'],
      ['95', 'accepted', 'per_tx_limit_exceeded'],
    ]);
  });

  it('an allow-list change and new_recipients: the vendor removed is a violation, a first recipient is held', () => {
    const removed = previewPolicy(log, { whitelist_remove: [VENDOR] }, window);
    // The allow-list is checked before the per-tx limit: 150 to the vendor is a violation too.
    expect(removed.would_block).toEqual({ whitelist_violation: 2 });
    const first = previewPolicy(log, { new_recipients: true }, window);
    // Each spend is judged on the real history: none to B or the vendor was approved before.
    expect(first.would_hold).toBe(4);
  });

  it('judges only the window, on the state the history built before it', () => {
    const late = previewPolicy(log, { daily_limit: new Big(100) }, { from: T0 + 2 * MINUTE, to: window.to });
    // 10 and 60 were spent before the window: 95 no longer fits a daily 100.
    expect(late).toMatchObject({
      intents: 3,
      would_block: { daily_limit_exceeded: 2, per_tx_limit_exceeded: 1 },
    });
  });
});

/** One real spend of the log: by agent A (to B) unless it says otherwise, settled or left open. */
interface Step {
  by?: string;
  amount: string;
  to?: string;
  mint?: string;
  at: number;
  outcome?: 'confirmed' | 'failed';
}

/**
 * The log of agents A and B (registered a week before T0) making `steps`, each decided by the real
 * decision on the group as it was (with `guard` rules of its own, if any) and settled as the step says.
 */
function fleetLog(steps: Step[], opts: { guard?: GuardRule[] } = {}) {
  const made: GroupEvent[] = [
    ...groupEvents(),
    ...(opts.guard
      ? [{ type: 'group.guard_set', data: { group_id: GROUP, rules: opts.guard, at: T0 } } as const]
      : []),
  ];
  const log: StreamEvent[] = made.map((event) => ({ stream: streams.group(GROUP), event }));
  const group = foldGroup(made);
  const states = new Map<string, AgentState>();
  const push = (id: string, event: AgentEvent) => {
    states.set(id, evolveAgent(states.get(id) ?? initialAgentState(), event));
    log.push({ stream: streams.agent(id), event: event as DomainEvent });
  };
  for (const id of [AGENT_A, AGENT_B]) push(id, registered(id, LIMITS, T0 - 7 * DAY_MS));
  const ids: string[] = [];
  for (const step of steps) {
    const by = step.by ?? AGENT_A;
    const cmd = transfer(step.amount, {
      counterparty: step.to ?? (by === AGENT_A ? AGENT_B : AGENT_A),
      now: step.at,
      ...(step.mint && { mint: step.mint }),
    });
    ids.push(cmd.intent_id);
    const d = decideIntent(cmd, { group, agent: states.get(by)! });
    for (const event of d.agentEvents) push(by, event);
    if (d.accepted && step.outcome) {
      const outcome =
        step.outcome === 'confirmed'
          ? ({ status: 'confirmed', tx_sig: `sig-${cmd.intent_id}` } as const)
          : ({ status: 'failed', code: 'insufficient_balance', message: 'low balance' } as const);
      for (const event of decideSettleIntent(
        { intent_id: cmd.intent_id, outcome, now: step.at },
        states.get(by)!,
      ))
        push(by, event);
    }
  }
  return { log, ids };
}
const hour = { from: T0, to: T0 + HOUR_MS };
const every = (n: number, step: Omit<Step, 'at'>, start = T0): Step[] =>
  Array.from({ length: n }, (_, i) => ({ ...step, at: start + i * MINUTE }));

describe('the policy preview under proposed guard rules and group limits', () => {
  it('names the rule that would hold a spend, and leaves the agent unfrozen', () => {
    const { log } = fleetLog([
      { amount: '10', at: T0, outcome: 'confirmed' },
      { amount: '20', to: VENDOR, at: T0 + MINUTE, outcome: 'confirmed' },
      { amount: '30', to: VENDOR, at: T0 + 2 * MINUTE },
    ]);
    const p = previewPolicy(log, { guard: [{ kind: 'new_counterparty', action: 'hold' }] }, hour);
    // B is an agent of the group (no counterparty the rule watches); the vendor is new to A at its
    // first spend, and no longer once that one confirmed.
    expect(p).toMatchObject({ intents: 3, would_hold: 1, would_block: {}, would_freeze: [] });
    expect(p.examples.map((x) => [x.amount, x.was, x.would, x.held_by])).toEqual([
      ['20', 'accepted', 'held', ['new_counterparty']],
    ]);
  });

  it('a velocity freeze: the spend that trips it and the agent’s later spends of the window are agent_frozen', () => {
    // A spends once an hour for the day before the window (usual: 24 in 168 hours), then 6 in a minute each.
    const before = Array.from({ length: 24 }, (_, i): Step => ({
      amount: '1',
      at: T0 - DAY_MS + i * HOUR_MS,
      outcome: 'confirmed',
    }));
    const { log } = fleetLog([
      ...before,
      ...every(6, { amount: '1', outcome: 'confirmed' }),
      { by: AGENT_B, amount: '1', at: T0 + 10 * MINUTE },
    ]);
    const rule: GuardRule = { kind: 'velocity', factor: 5, min_count: 4, action: 'freeze_agent' };
    const p = previewPolicy(log, { guard: [rule] }, hour);
    // Usual: the 24 spends of the day before over the week, about 0.15 an hour; the 4th spend of the
    // window is the 4th in the hour (min_count) and above 5 x usual: frozen with it, the 5th and 6th
    // refused after it. B is not frozen.
    expect(p).toMatchObject({ intents: 7, would_hold: 0, would_block: { agent_frozen: 3 } });
    expect(p.would_freeze).toEqual([{ agent: AGENT_A, at: T0 + 3 * MINUTE, rule: 'velocity' }]);
    expect(p.examples.map((x) => [x.at, x.would, x.held_by])).toEqual([
      [T0 + 3 * MINUTE, 'agent_frozen', ['velocity']],
      [T0 + 4 * MINUTE, 'agent_frozen', undefined],
      [T0 + 5 * MINUTE, 'agent_frozen', undefined],
    ]);
    // A hold of the same rule holds them instead, and freezes nobody.
    const held = previewPolicy(log, { guard: [{ ...rule, action: 'hold' }] }, hour);
    expect(held).toMatchObject({ would_hold: 3, would_block: {}, would_freeze: [] });
  });

  it('a refusals freeze: the refusal that reaches the count keeps its code, the freeze starts after it', () => {
    // 150 is above A's per-tx limit of 100: refused twice for real, then A spends within its limits.
    const { log } = fleetLog([
      { amount: '150', at: T0 },
      { amount: '150', at: T0 + MINUTE },
      { amount: '10', at: T0 + 2 * MINUTE, outcome: 'confirmed' },
      { amount: '10', at: T0 + 3 * MINUTE, outcome: 'confirmed' },
    ]);
    const p = previewPolicy(
      log,
      { guard: [{ kind: 'refusals', count: 2, window_seconds: 3600, action: 'freeze_agent' }] },
      hour,
    );
    expect(p.would_block).toEqual({ per_tx_limit_exceeded: 2, agent_frozen: 2 });
    expect(p.would_freeze).toEqual([{ agent: AGENT_A, at: T0 + MINUTE, rule: 'refusals' }]);
    expect(p.examples.map((x) => [x.amount, x.was, x.would])).toEqual([
      ['10', 'accepted', 'agent_frozen'],
      ['10', 'accepted', 'agent_frozen'],
    ]);
  });

  it('group limits refuse across agents, counting what every agent really spent (a failed spend released)', () => {
    const { log } = fleetLog([
      { amount: '50', at: T0 - HOUR_MS, outcome: 'confirmed' },
      { by: AGENT_B, amount: '40', at: T0 - 30 * MINUTE, outcome: 'failed' },
      { by: AGENT_B, amount: '30', at: T0, outcome: 'confirmed' },
      { amount: '20', at: T0 + MINUTE, outcome: 'confirmed' },
      { by: AGENT_B, amount: '1', at: T0 + 2 * MINUTE },
    ]);
    // Before the window A spent 50 (B's 40 failed: released): in it, B's 30 fits a group daily limit
    // of 90, A's 20 does not, nor B's 1 after it (A's 20 was really spent: it counts).
    const daily = previewPolicy(log, { group_limits: { daily_limit: new Big(90) } }, hour);
    expect(daily).toMatchObject({ intents: 3, would_block: { group_daily_limit_exceeded: 2 } });
    expect(daily.examples.map((x) => [x.agent_wallet_pda, x.amount, x.would])).toEqual([
      [AGENT_A, '20', 'group_daily_limit_exceeded'],
      [AGENT_B, '1', 'group_daily_limit_exceeded'],
    ]);
    // A cap of 2 operations an hour over the fleet: B's 30 and A's 20 fit (A's 50 is an hour old, B's
    // failed 40 released), B's 1 is the third.
    const capped = previewPolicy(log, { group_limits: { hourly_tx_cap: 2 } }, hour);
    expect(capped.would_block).toEqual({ group_hourly_tx_cap_exceeded: 1 });
    expect(capped.examples.map((x) => [x.agent_wallet_pda, x.amount])).toEqual([[AGENT_B, '1']]);
    // null lifts a limit: none is left.
    expect(previewPolicy(log, { group_limits: { daily_limit: null } }, hour).would_block).toEqual({});
  });

  it('takes the history before the window as the rules’ baseline: a mint spent before is no new token', () => {
    const other = address('other-mint');
    const { log } = fleetLog([
      { amount: '5', at: T0 - 3 * DAY_MS, outcome: 'confirmed' },
      { amount: '5', at: T0, outcome: 'confirmed' },
      { by: AGENT_B, amount: '5', at: T0 + MINUTE, outcome: 'confirmed' },
      { amount: '5', mint: other, at: T0 + 2 * MINUTE, outcome: 'confirmed' },
    ]);
    const p = previewPolicy(log, { guard: [{ kind: 'new_token', action: 'hold' }] }, hour);
    // A spent the base token three days before the window: only B's first and A's first of the other mint.
    expect(p.would_hold).toBe(2);
    expect(p.examples.map((x) => [x.agent_wallet_pda, x.held_by])).toEqual([
      [AGENT_B, ['new_token']],
      [AGENT_A, ['new_token']],
    ]);
  });

  it('the group’s own rules, set in the log, read the agents’ history from before they were set', () => {
    const { log } = fleetLog([
      { amount: '5', at: T0 - DAY_MS, outcome: 'confirmed' },
      { amount: '5', at: T0, outcome: 'confirmed' },
      { by: AGENT_B, amount: '5', at: T0 + MINUTE, outcome: 'confirmed' },
    ]);
    // The group set a new_token rule after A's first spend (the real decisions never met it).
    const set: StreamEvent = {
      stream: streams.group(GROUP),
      event: {
        type: 'group.guard_set',
        data: { group_id: GROUP, rules: [{ kind: 'new_token', action: 'hold' }], at: T0 - HOUR_MS },
      },
    };
    const first = log.findIndex((e) => e.event.type === 'intent.accepted');
    const edited = [...log.slice(0, first + 2), set, ...log.slice(first + 2)];
    const p = previewPolicy(edited, {}, hour);
    // A spent the base token before the rule: not new to it; B's first spend of it is held.
    expect(p.would_hold).toBe(1);
    expect(p.examples.map((x) => [x.agent_wallet_pda, x.held_by])).toEqual([[AGENT_B, ['new_token']]]);
    // Proposed rules of none: nothing held.
    expect(previewPolicy(edited, { guard: [] }, hour).would_hold).toBe(0);
  });

  it('the group’s own rules froze an agent for real: proposed rules replace them and their freeze', () => {
    const rule: GuardRule = { kind: 'velocity', factor: 1, min_count: 3, action: 'freeze_agent' };
    const { log } = fleetLog(every(5, { amount: '1', outcome: 'confirmed' }), { guard: [rule] });
    // As it was (no guard in the proposal): the third spend froze A, the others were refused with it.
    const asItWas = previewPolicy(log, {}, hour);
    expect(asItWas).toMatchObject({ would_block: { agent_frozen: 3 }, examples: [] });
    expect(asItWas.would_freeze).toEqual([{ agent: AGENT_A, at: T0 + 2 * MINUTE, rule: 'velocity' }]);
    // Without the rule, nothing would have frozen A.
    const without = previewPolicy(log, { guard: [] }, hour);
    expect(without).toMatchObject({ would_block: {}, would_freeze: [] });
    expect(without.examples.map((x) => [x.was, x.would])).toEqual([
      ['agent_frozen', 'accepted'],
      ['agent_frozen', 'accepted'],
      ['agent_frozen', 'accepted'],
    ]);
  });

  it('a would-be freeze ends where an admin really unfreezes the agent', () => {
    const { log, ids } = fleetLog(every(5, { amount: '1', outcome: 'confirmed' }));
    // An admin unfroze A (a freeze of its own, lifted) before its fifth spend.
    const fifth = log.findIndex((e) => 'intent_id' in e.event.data && e.event.data.intent_id === ids[4]);
    const unfrozen: StreamEvent = {
      stream: streams.agent(AGENT_A),
      event: {
        type: 'agent.unfrozen',
        data: { agent_id: AGENT_A, group_id: GROUP, at: T0 + 4 * MINUTE - 1 },
      },
    };
    const edited = [...log.slice(0, fifth), unfrozen, ...log.slice(fifth)];
    const rule: GuardRule = { kind: 'velocity', factor: 1, min_count: 3, action: 'freeze_agent' };
    const p = previewPolicy(edited, { guard: [rule] }, hour);
    // Frozen with the third, the fourth refused with it; unfrozen, the fifth trips the rule again.
    expect(p.would_freeze).toEqual([
      { agent: AGENT_A, at: T0 + 2 * MINUTE, rule: 'velocity' },
      { agent: AGENT_A, at: T0 + 4 * MINUTE, rule: 'velocity' },
    ]);
    expect(p.would_block).toEqual({ agent_frozen: 3 });
  });
});
