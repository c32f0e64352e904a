/**
 * The guard's rules inside the spend decision (intent.ts): a hold is an ordinary approval naming the
 * rule, a freeze refuses the spend with `agent_frozen` and freezes the agent in the same append, a
 * policy refusal that reaches the `refusals` count answers its own code and freezes, and simulate
 * names the rules but never trips one nor counts as a refusal. The rules themselves: guard.unit.spec.ts.
 */
import Big from 'big.js';
import { decideIntent, simulateIntent } from './intent';
import type { AgentEvent, GuardRule } from './events';
import type { GroupState } from './group';
import {
  AGENT_A,
  BASE_MINT,
  GROUP,
  OWNER,
  address,
  groupEvents,
  MINUTE,
  T0,
  VENDOR,
  accepted,
  agent,
  budget,
  group,
  registered,
  spent,
  submitting,
  transfer,
} from '@tokenops/testing/domain/fixtures';

const BOB = address('bob');
const CAROL = address('carol');
const guarded = (rules: GuardRule[], g: GroupState = group()): GroupState => ({ ...g, guard: rules });
const activeA = (...history: AgentEvent[][]) => agent([registered(AGENT_A), ...history.flat()]);
const types = (events: readonly AgentEvent[]) => events.map((e) => e.type);

describe('the guard in the spend decision', () => {
  it('holds a spend a `hold` rule trips: accepted and reserved, held, a guard.tripped beside it, the approval naming the rule', () => {
    const cmd = transfer('1', { counterparty: VENDOR });
    const d = decideIntent(cmd, {
      group: guarded([{ kind: 'new_counterparty', action: 'hold' }]),
      agent: activeA(),
      budget: budget(),
    });
    expect(d.accepted).toBe(true);
    expect(types(d.agentEvents)).toEqual(['intent.accepted', 'guard.tripped']);
    expect(d.agentEvents[1]!.data).toMatchObject({
      rule: 'new_counterparty',
      action: 'hold',
      intent_id: cmd.intent_id,
      agent_id: AGENT_A,
      at: T0,
    });
    expect(d.approval).toMatchObject({
      reason: 'guard',
      guard: [{ rule: 'new_counterparty', action: 'hold' }],
    });
    expect(d.agentEvents[0]!.data).toMatchObject({ held: { approval_id: d.approval!.approval_id } });
    expect(d.budgetEvents.map((e) => e.type)).toEqual(['budget.reserved']);
  });

  it('with no approval policy, the group’s admins and approvers approve a guard hold (quorum 1); viewers do not', () => {
    const members = group([
      ...groupEvents(),
      { type: 'member.added', data: { group_id: GROUP, wallet: BOB, role: 'approver', at: T0 } },
      { type: 'member.added', data: { group_id: GROUP, wallet: CAROL, role: 'viewer', at: T0 } },
    ]);
    const d = decideIntent(transfer('1', { counterparty: VENDOR }), {
      group: guarded([{ kind: 'new_counterparty', action: 'hold' }], members),
      agent: activeA(),
      budget: budget(),
    });
    expect(d.approval).toMatchObject({ approvers: [OWNER, BOB], quorum: 1 });
  });

  it('a spend above the threshold that trips a rule too is one approval naming both', () => {
    const cmd = transfer('60', { counterparty: VENDOR });
    const agentState = { ...activeA(), limits: { ...activeA().limits, approval_threshold: new Big(50) } };
    const d = decideIntent(cmd, {
      group: guarded([{ kind: 'new_token', action: 'hold' }]),
      agent: agentState,
      budget: budget(),
    });
    expect(d.approval).toMatchObject({
      reason: 'threshold',
      guard: [{ rule: 'new_token', figures: { mint: BASE_MINT } }],
    });
  });

  it('a `freeze_agent` rule refuses with agent_frozen and freezes the agent in the same events, failing what it had not submitted', () => {
    const open = accepted('open-1', '1', T0 - MINUTE);
    const sent = [accepted('sent-1', '1', T0 - MINUTE), submitting('sent-1', T0 - MINUTE)];
    const d = decideIntent(transfer('1'), {
      group: guarded([{ kind: 'velocity', factor: 1, min_count: 3, action: 'freeze_agent' }]),
      agent: activeA([open], sent),
    });
    expect(d.accepted).toBe(false);
    expect(d.code).toBe('agent_frozen');
    expect(d.message).toContain('The guard froze this agent: velocity (3 spends in the last hour');
    expect(types(d.agentEvents)).toEqual([
      'intent.blocked',
      'guard.tripped',
      'agent.frozen',
      'intent.failed',
    ]);
    expect(d.agentEvents[2]!.data).toMatchObject({
      by: 'guard',
      reason: expect.stringContaining('velocity: '),
    });
    expect(d.agentEvents[3]!.data).toMatchObject({
      intent_id: 'open-1',
      code: 'agent_frozen',
      message: expect.stringContaining('The guard froze this agent before the operation was submitted'),
    });
    // Frozen: the next spend is refused by the switch, naming the guard.
    const after = agent([registered(AGENT_A), open, ...sent, ...d.agentEvents]);
    const next = decideIntent(transfer('1'), { group: guarded([]), agent: after });
    expect(next.code).toBe('agent_frozen');
    expect(next.message).toMatch(/^The guard froze this agent at /);
  });

  it('a freeze outranks a hold; a refusal by a policy check outranks both (the guard judges only what passed)', () => {
    const both = decideIntent(transfer('1', { counterparty: VENDOR }), {
      group: guarded([
        { kind: 'new_counterparty', action: 'hold' },
        { kind: 'new_token', action: 'freeze_agent' },
      ]),
      agent: activeA(),
      budget: budget(),
    });
    expect(both.code).toBe('agent_frozen');
    expect(both.agentEvents.filter((e) => e.type === 'guard.tripped').map((e) => e.data)).toEqual([
      expect.objectContaining({ rule: 'new_token' }),
    ]);
    const refused = decideIntent(transfer('500'), {
      group: guarded([{ kind: 'new_token', action: 'freeze_agent' }]),
      agent: activeA(),
    });
    expect(refused.code).toBe('per_tx_limit_exceeded');
    expect(types(refused.agentEvents)).toEqual(['intent.blocked']);
  });

  it('withdrawals are never judged by the guard (they bring money back)', () => {
    const d = decideIntent(transfer('1', { action: 'withdraw', counterparty: VENDOR }), {
      group: guarded([{ kind: 'new_token', action: 'freeze_agent' }]),
      agent: activeA(),
    });
    expect(d.code).not.toBe('agent_frozen');
  });

  it('the refusal that reaches the `refusals` count answers its own code and freezes the agent with it', () => {
    const rules: GuardRule[] = [{ kind: 'refusals', count: 2, window_seconds: 600, action: 'freeze_agent' }];
    const first = decideIntent(transfer('500', { now: T0 }), { group: guarded(rules), agent: activeA() });
    expect(first.code).toBe('per_tx_limit_exceeded');
    expect(types(first.agentEvents)).toEqual(['intent.blocked']);
    const second = decideIntent(transfer('500', { now: T0 + MINUTE }), {
      group: guarded(rules),
      agent: activeA(first.agentEvents),
    });
    expect(second.code).toBe('per_tx_limit_exceeded');
    expect(types(second.agentEvents)).toEqual(['intent.blocked', 'guard.tripped', 'agent.frozen']);
    expect(second.agentEvents[1]!.data).toMatchObject({
      rule: 'refusals',
      figures: { refusals: 2, count: 2 },
    });
    // Out of the window, the first refusal no longer counts.
    const later = decideIntent(transfer('500', { now: T0 + 10 * MINUTE }), {
      group: guarded(rules),
      agent: activeA(first.agentEvents),
    });
    expect(types(later.agentEvents)).toEqual(['intent.blocked']);
  });

  it('simulate names the rule that would hold or freeze, and never trips one nor counts as a refusal', () => {
    const hold = simulateIntent(transfer('1', { counterparty: VENDOR }), {
      group: guarded([{ kind: 'new_counterparty', action: 'hold' }]),
      agent: activeA(),
      budget: budget(),
    });
    expect(hold).toMatchObject({
      would_succeed: false,
      reason: 'approval_required',
      held_by: ['new_counterparty'],
    });
    const freeze = simulateIntent(transfer('1'), {
      group: guarded([{ kind: 'velocity', factor: 1, min_count: 1, action: 'freeze_agent' }]),
      agent: activeA(spent('1', T0 - MINUTE)),
    });
    expect(freeze).toMatchObject({ would_succeed: false, reason: 'agent_frozen', held_by: ['velocity'] });
    const clear = simulateIntent(transfer('1'), {
      group: guarded([{ kind: 'new_token', action: 'hold' }]),
      agent: activeA(spent('1', T0 - MINUTE)),
    });
    expect(clear.would_succeed).toBe(true);
    expect(clear.held_by).toBeUndefined();
  });
});
