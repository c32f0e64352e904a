/**
 * The policy preview (design.md "Approvals"): what a proposed policy would have done to the spends a
 * group really made. The group's events are folded in log order, as the service folded them; each
 * spend decision of the window (`intent.accepted`, `intent.blocked`) is judged again, on the state
 * the real decision had, by the same evaluation (`evaluateIntent`) with the proposal laid over the
 * limits, the approval policy and the allow-list. Pure: events in, counts out; nothing is written.
 *
 * Each spend is judged on what really happened before it: a spend the proposal would have blocked
 * still counts in the windows of those after it (the history is not rewritten), so the preview says
 * which of the real spends the proposal would have held or blocked, one by one.
 *
 * The guard (design.md "Settled details of the guard"): the proposal may replace the group's guard
 * rules and lay group limits over the group's own. The rules read each agent's guard history
 * (AgentState.guard, folded from its whole stream: what came before the window is their baseline);
 * the group limits read what the group's agents really spent in their windows, which the preview folds
 * itself from the agents' `intent.accepted` and `intent.failed` (the group's spends stream exists only
 * while the group had limits). The one exception to "the history is not rewritten" is a freeze: a
 * spend a `freeze_agent` rule trips is `agent_frozen`, a refusal that reaches the `refusals` count
 * keeps its code, and from then on (until an admin really unfreezes the agent) every later spend of
 * that agent in the window is `agent_frozen`; `would_freeze` says who, when, by which rule. Under
 * proposed rules, the freezes the group's own rules really made (`agent.frozen {by: "guard"}`) are not
 * folded: the proposed rules decide the guard's freezes; an admin's freeze stands.
 */
import Big from 'big.js';
import { amountText, parseAmount } from '../money';
import { evolveAgent, evolveAgentUnguarded, initialAgentState, type AgentState, type Freeze } from './agent';
import { evolveApprovals, groupApprovalPolicy, initialApprovalsState, type ApprovalsState } from './approval';
import { evolveBudget, initialBudgetState, type BudgetState } from './budget';
import {
  ENTRY_TYPE,
  type Action,
  type AgentEvent,
  type ApprovalEvent,
  type BudgetEvent,
  type DomainEvent,
  type EntryType,
  type GroupEvent,
} from './events';
import { evolveGroup, initialGroupState, type AllowEntry, type GroupState } from './group';
import { FleetCounts } from './fleet-counts';
import { hasGroupLimits, type GroupLimits } from './group-limits';
import type { GuardRule, GuardRuleKind } from './guard';
import { evaluateIntent, type IntentCommand } from './intent';
import type { Limits } from './limits';

export interface PolicyProposal {
  per_tx_limit?: Big;
  daily_limit?: Big;
  hourly_tx_cap?: number;
  /** The group's approval threshold (it replaces the agents' own too); null: none. */
  approval_threshold?: Big | null;
  new_recipients?: boolean;
  whitelist_add?: readonly { address: string; type: EntryType; approved_amount?: Big }[];
  whitelist_remove?: readonly string[];
  /** The group's guard rules, replacing its own (checked by parseGuardRules); `[]`: none. */
  guard?: readonly GuardRule[];
  /** Laid over the group's own limits: a limit absent keeps the group's, null lifts it. */
  group_limits?: { daily_limit?: Big | null; hourly_tx_cap?: number | null };
}

/** What a spend was, or would be: allowed, held for a person, or blocked with a code. */
export type Verdict = 'accepted' | 'held' | string;

export interface PreviewExample {
  intent_id: string;
  agent_wallet_pda: string;
  action: Action;
  amount: string;
  counterparty: string;
  at: number;
  was: Verdict;
  would: Verdict;
  /** The guard's rules that would hold it (`held`) or freeze its agent with it (`agent_frozen`). */
  held_by?: GuardRuleKind[];
}

/** An agent the proposal's guard would have frozen: when (the spend that froze it), by which rule. */
export interface WouldFreeze {
  agent: string;
  at: number;
  rule: GuardRuleKind;
}

export interface Preview {
  from: number;
  to: number;
  /** Spend decisions of the window judged again. */
  intents: number;
  would_hold: number;
  would_block: Record<string, number>;
  /** The first spends whose verdict the proposal changes (at most `examples`). */
  examples: PreviewExample[];
  /** The agents the guard would have frozen in the window, in order. */
  would_freeze: WouldFreeze[];
}

interface Folded {
  group: GroupState;
  agents: Map<string, AgentState>;
  budgets: Map<string, BudgetState>;
  approvals: ApprovalsState;
  /** What the group's agents really spent, in the windows of group limits; absent when no spend meets one. */
  groupSpends?: FleetCounts;
  /** The agents the replay froze, by agent: their later spends of the window are `agent_frozen`. */
  frozen: Map<string, Freeze>;
  /** Whether the proposal replaces the guard's rules (the real ones' freezes are then not folded). */
  ownGuard: boolean;
  /** How an agent's events fold: without the guard's history when no spend meets a guard rule. */
  evolve: (state: AgentState, event: AgentEvent) => AgentState;
}

/** One event of the group, with the stream it was recorded in (which decides how it folds). */
export interface StreamEvent {
  stream: string;
  event: DomainEvent;
}

export function previewPolicy(
  events: Iterable<StreamEvent>,
  proposal: PolicyProposal,
  window: { from: number; to: number; examples?: number },
  decimalsOf: (mint: string) => number = () => 6,
): Preview {
  const log = Array.isArray(events) ? (events as readonly StreamEvent[]) : [...events];
  const state: Folded = {
    group: initialGroupState(),
    agents: new Map(),
    budgets: new Map(),
    approvals: initialApprovalsState(),
    ...(meetsGroupLimits(log, proposal) && { groupSpends: new FleetCounts() }),
    frozen: new Map(),
    ownGuard: proposal.guard !== undefined,
    evolve: meetsGuardRules(log, proposal) ? evolveAgent : evolveAgentUnguarded,
  };
  const preview: Preview = {
    from: window.from,
    to: window.to,
    intents: 0,
    would_hold: 0,
    would_block: {},
    examples: [],
    would_freeze: [],
  };
  const most = window.examples ?? 10;
  let proposedGroup: GroupState | undefined;
  for (const { stream, event } of log) {
    const decided = inWindow(event, window) ? spendOf(event) : undefined;
    if (decided) {
      proposedGroup ??= proposed(state.group, proposal);
      const { would, held_by, freeze } = judge(decided, state, proposedGroup, proposal, decimalsOf);
      preview.intents += 1;
      if (would === 'held') preview.would_hold += 1;
      else if (would !== 'accepted') preview.would_block[would] = (preview.would_block[would] ?? 0) + 1;
      if (freeze) {
        state.frozen.set(decided.agent_id, {
          by: 'guard',
          reason: `${freeze}: the preview's guard froze the agent`,
          at: decided.at,
        });
        preview.would_freeze.push({ agent: decided.agent_id, at: decided.at, rule: freeze });
      }
      if (would !== decided.was && preview.examples.length < most)
        preview.examples.push({
          intent_id: decided.intent_id,
          agent_wallet_pda: decided.agent_id,
          action: decided.action,
          amount: amountText(decided.amount),
          counterparty: decided.counterparty,
          at: decided.at,
          was: decided.was,
          would,
          ...(held_by && { held_by }),
        });
    }
    if (fold(state, stream, event)) proposedGroup = undefined;
  }
  return preview;
}

/** Whether any spend may meet a guard rule: the proposal has some, or (without rules of its own) the group had. */
function meetsGuardRules(log: readonly StreamEvent[], p: PolicyProposal): boolean {
  if (p.guard !== undefined) return p.guard.length > 0;
  return log.some(({ event }) => event.type === 'group.guard_set' && event.data.rules.length > 0);
}

/**
 * Whether any spend may meet group limits: the proposal sets one, or the group had some in the log.
 * Only then does the preview fold what the group's agents spent (from the start of the log: spends
 * before the limits were set, or before the window, count in the windows of those after them).
 */
function meetsGroupLimits(log: readonly StreamEvent[], p: PolicyProposal): boolean {
  const g = p.group_limits;
  if (g && ((g.daily_limit !== undefined && g.daily_limit !== null) || typeof g.hourly_tx_cap === 'number'))
    return true;
  return log.some(({ event }) => event.type === 'group.limits_set');
}

/** Folds one event into the state; true when it changed the group (the proposal is laid over it again). */
function fold(state: Folded, stream: string, event: DomainEvent): boolean {
  const [kind, id] = splitStream(stream);
  if (kind === 'group') {
    state.group = evolveGroup(state.group, event as GroupEvent);
    return true;
  }
  if (kind === 'agent') foldAgent(state, id, event as AgentEvent);
  else if (kind === 'budget')
    state.budgets.set(id, evolveBudget(state.budgets.get(id) ?? initialBudgetState(), event as BudgetEvent));
  else if (kind === 'approvals') state.approvals = evolveApprovals(state.approvals, event as ApprovalEvent);
  return false;
}

function foldAgent(state: Folded, id: string, event: AgentEvent): void {
  const before = state.agents.get(id) ?? initialAgentState();
  let after = state.evolve(before, event);
  if (event.type === 'agent.frozen' && event.data.by === 'guard' && state.ownGuard) {
    // The real rules froze it; under the proposed ones, the replay decides the guard's freezes.
    const { frozen: _real, ...rest } = after;
    after = before.frozen ? { ...rest, frozen: before.frozen } : rest;
  }
  if (event.type === 'agent.unfrozen') state.frozen.delete(id);
  state.agents.set(id, after);
  if (state.groupSpends) {
    if (event.type === 'intent.accepted') state.groupSpends.counted(event.data);
    else if (event.type === 'intent.failed') state.groupSpends.released(event.data.intent_id);
  }
}

const PREFIXES = ['group', 'agent', 'budget', 'approvals'] as const;
function splitStream(stream: string): [string, string] {
  for (const prefix of PREFIXES)
    if (stream.startsWith(`${prefix}-`)) return [prefix, stream.slice(prefix.length + 1)];
  return ['', ''];
}

interface Decided {
  intent_id: string;
  agent_id: string;
  action: Action;
  amount: Big;
  value: Big;
  mint: string;
  counterparty: string;
  at: number;
  was: Verdict;
}

/** Whether `event` is a decision of the window (spendOf says whether it judged a spend). */
const inWindow = (event: DomainEvent, window: { from: number; to: number }): boolean =>
  (event.type === 'intent.accepted' || event.type === 'intent.blocked') &&
  event.data.at >= window.from &&
  event.data.at < window.to;

/** A spend decision the log recorded (a refused key is not one: no spend was judged). */
function spendOf(event: DomainEvent): Decided | undefined {
  if (event.type === 'intent.accepted') {
    const d = event.data;
    return {
      intent_id: d.intent_id,
      agent_id: d.agent_id,
      action: d.action,
      amount: new Big(d.amount),
      value: new Big(d.value),
      mint: d.mint,
      counterparty: d.counterparty,
      at: d.at,
      was: d.held ? 'held' : 'accepted',
    };
  }
  if (event.type === 'intent.blocked' && event.data.code !== 'unauthorized') {
    const d = event.data;
    const amount = parseAmountOrZero(d.attempted_amount);
    return {
      intent_id: d.intent_id,
      agent_id: d.agent_id,
      action: d.action,
      amount,
      // A blocked spend's valuation is not recorded: its amount stands for its value.
      value: amount,
      mint: d.mint,
      counterparty: d.counterparty,
      at: d.at,
      was: d.code,
    };
  }
  return undefined;
}

function parseAmountOrZero(text: string): Big {
  try {
    return parseAmount(text);
  } catch {
    return new Big(0);
  }
}

/** The group's limits with the proposal's laid over them: absent keeps one, null lifts it. */
function proposedLimits(own: GroupLimits, p: PolicyProposal['group_limits']): GroupLimits {
  if (!p) return own;
  const daily = p.daily_limit === undefined ? own.daily_limit : (p.daily_limit ?? undefined);
  const hourly = p.hourly_tx_cap === undefined ? own.hourly_tx_cap : (p.hourly_tx_cap ?? undefined);
  return {
    ...(daily !== undefined && { daily_limit: daily }),
    ...(hourly !== undefined && { hourly_tx_cap: hourly }),
  };
}

/**
 * The group as the proposal would have it: its allow-list changed, its approval policy, its guard rules
 * and its limits replaced.
 */
function proposed(group: GroupState, p: PolicyProposal): GroupState {
  const entries = new Map(group.entries);
  for (const address of p.whitelist_remove ?? []) entries.delete(address);
  for (const add of p.whitelist_add ?? []) {
    const entry: AllowEntry = {
      entryId: `proposed-${add.address}`,
      address: add.address,
      type: add.type,
      ...(add.type === ENTRY_TYPE.recipient && {
        approvedAmount: add.approved_amount ?? new Big(0),
        ttlExpiresAt: Number.MAX_SAFE_INTEGER,
      }),
    };
    entries.set(add.address, entry);
  }
  const policy = groupApprovalPolicy(group);
  const approvalPolicy = {
    ...policy,
    threshold: p.approval_threshold === undefined ? policy.threshold : p.approval_threshold,
    newRecipients: p.new_recipients ?? policy.newRecipients,
  };
  return {
    ...group,
    entries,
    approvalPolicy,
    ...(p.guard !== undefined && { guard: p.guard }),
    limits: proposedLimits(group.limits, p.group_limits),
  };
}

interface Judged {
  would: Verdict;
  /** The rules that would hold the spend, or freeze its agent with it. */
  held_by?: GuardRuleKind[];
  /** The rule that would freeze the agent with this spend. */
  freeze?: GuardRuleKind;
}

function judge(
  spend: Decided,
  state: Folded,
  group: GroupState,
  p: PolicyProposal,
  decimalsOf: (mint: string) => number,
): Judged {
  const real = state.agents.get(spend.agent_id) ?? initialAgentState();
  const frozen = real.frozen ?? state.frozen.get(spend.agent_id);
  const agent = frozen && !real.frozen ? { ...real, frozen } : real;
  const limits: Limits = {
    per_tx_limit: p.per_tx_limit ?? agent.limits.per_tx_limit,
    daily_limit: p.daily_limit ?? agent.limits.daily_limit,
    hourly_tx_cap: p.hourly_tx_cap ?? agent.limits.hourly_tx_cap,
    // The proposal's threshold is everyone's; else the agent keeps its own.
    ...(p.approval_threshold === undefined &&
      agent.limits.approval_threshold !== undefined && {
        approval_threshold: agent.limits.approval_threshold,
      }),
  };
  const entry = group.entries.get(spend.counterparty);
  const cmd: IntentCommand = {
    intent_id: spend.intent_id,
    action: spend.action,
    amount: spend.amount,
    value: spend.value,
    mint: spend.mint,
    decimals: decimalsOf(spend.mint),
    counterparty: spend.counterparty,
    now: spend.at,
  };
  // A type-1 entry's budget, and an entry's daily window: its budget stream, whatever its type.
  const budget = entry ? state.budgets.get(entry.entryId) : undefined;
  const evaluation = evaluateIntent(cmd, {
    group,
    agent: { ...agent, limits },
    ...(budget && { budget }),
    approvals: state.approvals,
    ...(state.groupSpends && hasGroupLimits(group.limits) && { groupSpends: { intents: state.groupSpends } }),
  });
  const would = evaluation.failure ?? (evaluation.hold ? 'held' : 'accepted');
  const trips = evaluation.trips ?? [];
  const freeze =
    evaluation.refusalTrip?.rule ?? (evaluation.failure === 'agent_frozen' ? trips[0]?.rule : undefined);
  return {
    would,
    ...(trips.length > 0 && { held_by: trips.map((t) => t.rule) }),
    ...(freeze !== undefined && { freeze }),
  };
}
