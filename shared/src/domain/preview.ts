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
 */
import Big from 'big.js';
import { amountText, parseAmount } from '../money';
import { evolveAgent, initialAgentState, type AgentState } from './agent';
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
}

interface Folded {
  group: GroupState;
  agents: Map<string, AgentState>;
  budgets: Map<string, BudgetState>;
  approvals: ApprovalsState;
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
  const state: Folded = {
    group: initialGroupState(),
    agents: new Map(),
    budgets: new Map(),
    approvals: initialApprovalsState(),
  };
  const preview: Preview = {
    from: window.from,
    to: window.to,
    intents: 0,
    would_hold: 0,
    would_block: {},
    examples: [],
  };
  const most = window.examples ?? 10;
  let proposedGroup: GroupState | undefined;
  for (const { stream, event } of events) {
    const decided = spendOf(event);
    if (decided && decided.at >= window.from && decided.at < window.to) {
      proposedGroup ??= proposed(state.group, proposal);
      const would = judge(decided, state, proposedGroup, proposal, decimalsOf);
      preview.intents += 1;
      if (would === 'held') preview.would_hold += 1;
      else if (would !== 'accepted') preview.would_block[would] = (preview.would_block[would] ?? 0) + 1;
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
        });
    }
    if (fold(state, stream, event)) proposedGroup = undefined;
  }
  return preview;
}

/** Folds one event into the state; true when it changed the group (the proposal is laid over it again). */
function fold(state: Folded, stream: string, event: DomainEvent): boolean {
  const [kind, id] = splitStream(stream);
  if (kind === 'group') {
    state.group = evolveGroup(state.group, event as GroupEvent);
    return true;
  }
  if (kind === 'agent')
    state.agents.set(id, evolveAgent(state.agents.get(id) ?? initialAgentState(), event as AgentEvent));
  else if (kind === 'budget')
    state.budgets.set(id, evolveBudget(state.budgets.get(id) ?? initialBudgetState(), event as BudgetEvent));
  else if (kind === 'approvals') state.approvals = evolveApprovals(state.approvals, event as ApprovalEvent);
  return false;
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

/** The group as the proposal would have it: its allow-list changed, its approval policy replaced. */
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
  return { ...group, entries, approvalPolicy };
}

function judge(
  spend: Decided,
  state: Folded,
  group: GroupState,
  p: PolicyProposal,
  decimalsOf: (mint: string) => number,
): Verdict {
  const agent = state.agents.get(spend.agent_id) ?? initialAgentState();
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
  });
  return evaluation.failure ?? (evaluation.hold ? 'held' : 'accepted');
}
