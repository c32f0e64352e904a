/**
 * The spend decision: whether an agent may transfer, swap, deposit or withdraw, and what that
 * reserves. One evaluation serves both the real decision and `simulate`, so a dry run can never
 * disagree with the real thing. Pure: the state of the agent, its group and (for a budgeted
 * recipient, or an entry with a daily limit) the entry's budget stream come in; events go out.
 *
 * The checks run in this order; the first that fails is the answer:
 *   agent_active      the agent is registered and not revoked                 unauthorized
 *   group_not_frozen  no admin has frozen the agent's group                   group_frozen
 *   agent_not_frozen  no admin has frozen the agent                           agent_frozen
 *   amount_positive   the amount is more than zero                            invalid_amount
 *   fee_carried       a transfer's 0.10 % fee is at least one base unit       invalid_amount
 *                     (money/fee.ts: 0.0005 of a 6-decimal token at least)
 *   recipient_valid   a transfer does not go to the agent itself              recipient_invalid
 *   whitelisted       the counterparty is on the allow-list with a type the   whitelist_violation
 *                     action may use (transfer: 0 or 1; swap, deposit,
 *                     withdraw: 2)
 *   whitelist_ttl     a type-1 entry has not expired (expired at its second)  whitelist_expired
 *   whitelist_budget  the value fits what remains of a type-1 budget          whitelist_amount_exhausted
 *   per_tx            value <= per_tx_limit (withdrawals exempt)              per_tx_limit_exceeded
 *   daily             spent in 24 h + value <= daily_limit (withdrawals exempt) daily_limit_exceeded
 *   hourly            operations in 60 min < hourly_tx_cap                    hourly_cap_exceeded
 *   entry_daily       what the group's agents sent the entry in 24 h + value   entry_daily_limit_exceeded
 *                     <= its daily limit (withdrawals exempt; only with one)
 *   group_daily       what the group's agents spent in 24 h + value <= the     group_daily_limit_exceeded
 *                     group's daily limit (withdrawals exempt; only with one)
 *   group_hourly      the group's operations in 60 min < its hourly cap        group_hourly_tx_cap_exceeded
 *                     (only with one)
 *
 * A spend (not a withdrawal) that passes every check then meets the group's guard rules (guard.ts), when
 * it has any:
 *   guard             no rule with `freeze_agent` trips                        agent_frozen
 *                     (the agent is frozen with the refusal: agent.frozen {by: "guard"})
 * and may still be held for a person (approval.ts): its value is above the approval threshold (the
 * agent's own, else the group's), it is the first to its allow-list entry under `new_recipients`, or a
 * guard rule with `hold` trips. A held intent is accepted and reserved like any other, marked `held`,
 * and not executed until its approval is approved; `simulate` says `approval_required` (and `held_by`
 * the rules). A rule that trips is a `guard.tripped` event of the agent's stream, beside the decision.
 *
 * A spend refused by a policy check (a 403 of POLICY_CODES) is counted by the `refusals` rule: the
 * refusal that reaches its count answers its own code, and freezes the agent with it.
 *
 * Limits and budgets are in the group's base token: `value` is the amount valued in it (equal to the
 * amount for the base token; the caller values other tokens at the aggregator's quote).
 */
import Big from 'big.js';
import { ERROR_CATALOGUE } from '../errors';
import { amountText, feeOnTop, minimumTransfer, splitFee, type FeeSplit } from '../money';
import {
  dailyRemaining,
  hourlyRemaining,
  opsInHour,
  spentInDay,
  decideFreezeAgent,
  type AgentState,
  type Freeze,
} from './agent';
import {
  budgetRemaining,
  entryDailyRemaining,
  initialBudgetState,
  reservesOn,
  type BudgetState,
} from './budget';
import {
  ENTRY_TYPE,
  type Action,
  type AgentEvent,
  type ApprovalRequested,
  type BlockCode,
  type HoldReason,
  type BudgetEvent,
  type EntryType,
  type GroupSpendsEvent,
  type GuardRuleKind,
  type GuardTrip,
  type IntentData,
  type IntentParams,
  type LimitThreshold,
  type X402Terms,
} from './events';
import type { AllowEntry, GroupState } from './group';
import {
  groupRoom,
  hasGroupLimits,
  initialGroupSpends,
  type GroupCounts,
  type GroupRoom,
} from './group-limits';
import { approvalIdOf, approvalMessage, approvalRule, holdReason, type ApprovalsState } from './approval';
import { countsAsRefusal, evaluateGuard, refusalTrip } from './guard';

export interface IntentCommand {
  intent_id: string;
  action: Action;
  /** In the mint's human units. */
  amount: Big;
  /** The amount valued in the group's base token. */
  value: Big;
  mint: string;
  /** The mint's decimals (the fee is rounded to them, at most 6). */
  decimals: number;
  /** Recipient, aggregator or lending program. Absent only in a simulation without a recipient. */
  counterparty?: string;
  memo?: string;
  /** Transfers: the memo's SHA-256 (hex) to put on chain in its place (the variant contract). */
  memo_sha256?: string;
  task_id?: string;
  idempotency_key?: string;
  /** Swap: its terms; deposit and withdraw: what the venue is handed. */
  params?: IntentParams;
  /** A transfer that pays an x402 resource: `amount` is its price plus the fee on top. */
  x402?: X402Terms;
  now: number;
}

export interface DecisionState {
  group: GroupState;
  agent: AgentState;
  /**
   * The counterparty's entry's budget stream, when it has one: a type-1 entry, or an entry with a daily
   * limit (absent: nothing reserved yet).
   */
  budget?: BudgetState;
  /** The group's approvals, when the rule holds new recipients (who was approved before). */
  approvals?: ApprovalsState;
  /** What the group's agents have in its limits' windows, when the group has limits (absent: nothing yet). */
  groupSpends?: GroupCounts;
}

export type CheckName =
  | 'agent_active'
  | 'group_not_frozen'
  | 'agent_not_frozen'
  | 'amount_positive'
  | 'fee_carried'
  | 'recipient_valid'
  | 'whitelisted'
  | 'whitelist_ttl'
  | 'whitelist_budget'
  | 'per_tx'
  | 'daily'
  | 'hourly'
  | 'entry_daily'
  | 'group_daily'
  | 'group_hourly'
  | 'guard';

export interface Check {
  name: CheckName;
  ok: boolean;
  /** The code this check blocks with. */
  code: BlockCode;
  /** What to tell the agent when it fails, where the code's catalogue message says too little. */
  message?: string;
}

export interface Evaluation {
  checks: Check[];
  /** The first failing check's code; absent when every check passed. */
  failure?: BlockCode;
  /** The first failing check's message for the agent. */
  message?: string;
  entry?: AllowEntry;
  /** Transfers only: the fee split of the amount. */
  fee?: FeeSplit;
  /** Headroom before this intent. */
  daily_remaining: Big;
  hourly_tx_remaining: number;
  /** Type-1 entries: what the budget still allows, and how long the entry lives. */
  budget_remaining?: Big;
  ttl_remaining_ms?: number;
  /** What the entry's own daily limit leaves before this intent, when it has one (and the intent spends). */
  entry_daily_remaining?: Big;
  /** What the group's own limits leave before this intent, when it has any. */
  group?: GroupRoom;
  /** Every check passed but a person must approve: why. */
  hold?: HoldReason;
  /** The guard's rules this spend tripped (those that hold it, or the one that freezes the agent). */
  trips?: GuardTrip[];
  /** A refusal by a policy check that reaches the `refusals` rule's count: the agent is frozen with it. */
  refusalTrip?: GuardTrip;
}

const ALLOWED_TYPES: Record<Action, readonly EntryType[]> = {
  transfer: [ENTRY_TYPE.agent, ENTRY_TYPE.recipient],
  swap: [ENTRY_TYPE.protocol],
  deposit: [ENTRY_TYPE.protocol],
  withdraw: [ENTRY_TYPE.protocol],
};

const spends = (action: Action): boolean => action !== 'withdraw';

/** Which switch refused the spend, since when, and the admin's reason. */
const frozenMessage = (what: 'agent' | 'group', freeze: Freeze): string =>
  `${freeze.by === 'guard' ? 'The guard' : 'An admin'} froze ${what === 'agent' ? 'this agent' : "this agent's group"} at ${new Date(freeze.at).toISOString()}${freeze.reason ? ` (${freeze.reason})` : ''}: every spend is refused until it is unfrozen.`;

export function evaluateIntent(cmd: IntentCommand, state: DecisionState): Evaluation {
  const { agent, group } = state;
  const now = cmd.now;
  const checks: Check[] = [];
  const check = (name: CheckName, ok: boolean, code: BlockCode, message?: string) =>
    checks.push({ name, ok, code, ...(message !== undefined && { message }) });

  check('agent_active', agent.status === 'active' && agent.groupId === group.groupId, 'unauthorized');
  const groupFrozen = group.governance.frozen;
  check('group_not_frozen', !groupFrozen, 'group_frozen', groupFrozen && frozenMessage('group', groupFrozen));
  check(
    'agent_not_frozen',
    !agent.frozen,
    'agent_frozen',
    agent.frozen && frozenMessage('agent', agent.frozen),
  );
  check('amount_positive', cmd.amount.gt(0), 'invalid_amount');
  const fee =
    cmd.action !== 'transfer'
      ? undefined
      : cmd.x402
        ? feeOnTop(new Big(cmd.x402.price), cmd.decimals)
        : splitFee(cmd.amount, cmd.decimals);
  if (fee)
    check(
      'fee_carried',
      fee.protocol_fee.gt(0),
      'invalid_amount',
      `A transfer must be large enough to carry its 0.10 % fee: at least ${amountText(minimumTransfer(cmd.decimals))} of this token.`,
    );

  const entry = cmd.counterparty === undefined ? undefined : group.entries.get(cmd.counterparty);
  let budget_remaining: Big | undefined;
  let ttl_remaining_ms: number | undefined;
  if (cmd.counterparty !== undefined) {
    if (cmd.action === 'transfer')
      check(
        'recipient_valid',
        cmd.counterparty !== agent.agentId,
        'recipient_invalid',
        'The recipient is the agent’s own wallet; a transfer must go to another allow-listed address.',
      );
    check(
      'whitelisted',
      entry !== undefined && ALLOWED_TYPES[cmd.action].includes(entry.type),
      'whitelist_violation',
    );
    if (entry?.type === ENTRY_TYPE.recipient) {
      ttl_remaining_ms = Math.max(0, (entry.ttlExpiresAt ?? 0) - now);
      check('whitelist_ttl', ttl_remaining_ms > 0, 'whitelist_expired');
      budget_remaining = budgetRemaining(entry, state.budget ?? initialBudgetState(), cmd.intent_id);
      check(
        'whitelist_budget',
        budget_remaining.gt(0) && cmd.value.lte(budget_remaining),
        'whitelist_amount_exhausted',
      );
    }
  }

  const daily_remaining = dailyRemaining(agent, now);
  const hourly_tx_remaining = hourlyRemaining(agent, now);
  if (spends(cmd.action)) {
    check('per_tx', cmd.value.lte(agent.limits.per_tx_limit), 'per_tx_limit_exceeded');
    check('daily', cmd.value.lte(daily_remaining), 'daily_limit_exceeded');
  }
  check('hourly', hourly_tx_remaining > 0, 'hourly_cap_exceeded');
  const entry_daily_remaining =
    entry && spends(cmd.action)
      ? entryDailyRemaining(entry, state.budget ?? initialBudgetState(), now, cmd.intent_id)
      : undefined;
  if (entry_daily_remaining !== undefined)
    check('entry_daily', cmd.value.lte(entry_daily_remaining), 'entry_daily_limit_exceeded');
  const groupRoomLeft = hasGroupLimits(group.limits)
    ? groupRoom(group.limits, state.groupSpends ?? initialGroupSpends(), now, cmd.intent_id)
    : undefined;
  if (groupRoomLeft?.daily_remaining !== undefined && spends(cmd.action))
    check('group_daily', cmd.value.lte(groupRoomLeft.daily_remaining), 'group_daily_limit_exceeded');
  if (groupRoomLeft?.hourly_tx_remaining !== undefined)
    check('group_hourly', groupRoomLeft.hourly_tx_remaining > 0, 'group_hourly_tx_cap_exceeded');

  const refused = checks.find((c) => !c.ok);
  const trips =
    refused === undefined && entry !== undefined && spends(cmd.action) && group.guard.length > 0
      ? evaluateGuard(
          group.guard,
          {
            entry_id: entry.entryId,
            entry_type: entry.type,
            mint: cmd.mint,
            value: cmd.value,
            now,
            daily_limit: agent.limits.daily_limit,
          },
          agent.guard,
        )
      : [];
  const freezes = trips.filter((t) => t.action === 'freeze_agent');
  if (trips.length > 0)
    check(
      'guard',
      freezes.length === 0,
      'agent_frozen',
      freezes.length > 0
        ? `The guard froze this agent: ${freezes.map((t) => `${t.rule} (${t.words})`).join('; ')}. Every spend is refused until it is unfrozen.`
        : undefined,
    );
  const failed = refused ?? checks.find((c) => !c.ok);
  const refusal =
    refused !== undefined && countsAsRefusal(refused.code) && group.guard.length > 0
      ? refusalTrip(group.guard, now, agent.guard)
      : undefined;
  const holds = failed === undefined ? trips : [];
  const hold =
    failed === undefined
      ? (holdReason(cmd, entry, approvalRule(group, agent), state.approvals?.approvedCounterparties) ??
        (holds.length > 0 ? 'guard' : undefined))
      : undefined;
  return {
    checks,
    ...(failed !== undefined && {
      failure: failed.code,
      message: failed.message ?? ERROR_CATALOGUE[failed.code].message,
    }),
    ...(entry !== undefined && { entry }),
    ...(fee !== undefined && { fee }),
    daily_remaining,
    hourly_tx_remaining,
    ...(budget_remaining !== undefined && { budget_remaining }),
    ...(ttl_remaining_ms !== undefined && { ttl_remaining_ms }),
    ...(entry_daily_remaining !== undefined && { entry_daily_remaining }),
    ...(groupRoomLeft !== undefined && { group: groupRoomLeft }),
    ...(hold !== undefined && { hold }),
    ...(trips.length > 0 && { trips: failed === undefined ? holds : freezes }),
    ...(refusal !== undefined && { refusalTrip: refusal }),
  };
}

export interface IntentDecision {
  accepted: boolean;
  /** Why it was blocked, and what the agent is told. */
  code?: BlockCode;
  message?: string;
  evaluation: Evaluation;
  /** For the agent's stream: intent.accepted or intent.blocked (none when the intent was already accepted). */
  agentEvents: AgentEvent[];
  /** For the entry's budget stream: the reservation, or the release of this intent's earlier reservation. */
  budgetEvents: BudgetEvent[];
  /** For the group's spends stream (a group with limits): the count, or the release of this intent's earlier count. */
  groupEvents: GroupSpendsEvent[];
  /** Held for approval: the request for the group's approvals stream (appended after the acceptance). */
  approval?: ApprovalRequested['data'];
  /** Headroom once this intent is counted. */
  daily_remaining: Big;
  hourly_tx_remaining: number;
}

/**
 * Decides an intent. Accepted: reserve the value on the entry's budget stream (type-1 entries, entries
 * with a daily limit) and the agent.
 * Blocked: record the attempt with its code and release anything this intent had reserved.
 * Deciding again for an intent the agent already accepted changes nothing, so a retry is safe.
 */
export function decideIntent(cmd: IntentCommand, state: DecisionState): IntentDecision {
  if (cmd.counterparty === undefined) throw new Error('decideIntent needs a counterparty');
  const evaluation = evaluateIntent(cmd, state);
  const { agent, group } = state;
  const ownReservation = state.budget?.reserved.has(cmd.intent_id) ?? false;

  if (agent.intents.has(cmd.intent_id)) {
    return {
      accepted: true,
      evaluation,
      agentEvents: [],
      budgetEvents: [],
      groupEvents: [],
      daily_remaining: evaluation.daily_remaining,
      hourly_tx_remaining: evaluation.hourly_tx_remaining,
    };
  }

  if (evaluation.failure !== undefined) {
    const code = evaluation.failure;
    const message = evaluation.message!;
    const freezing = evaluation.refusalTrip ? [evaluation.refusalTrip] : (evaluation.trips ?? []);
    return {
      accepted: false,
      code,
      message,
      evaluation,
      agentEvents: [
        {
          type: 'intent.blocked',
          data: {
            intent_id: cmd.intent_id,
            agent_id: agent.agentId,
            group_id: group.groupId,
            action: cmd.action,
            code,
            message,
            attempted_amount: amountText(cmd.amount),
            mint: cmd.mint,
            counterparty: cmd.counterparty,
            at: cmd.now,
          },
        },
        ...tripped(freezing, cmd, agent),
        ...(freezing.length > 0
          ? decideFreezeAgent(
              { by: 'guard', reason: freezing.map((t) => `${t.rule}: ${t.words}`).join('; '), now: cmd.now },
              agent,
            )
          : []),
      ],
      budgetEvents:
        ownReservation && evaluation.entry
          ? [
              {
                type: 'budget.released',
                data: { entry_id: evaluation.entry.entryId, intent_id: cmd.intent_id, at: cmd.now },
              },
            ]
          : [],
      groupEvents: evaluation.group?.own
        ? [
            {
              type: 'group.spend_released',
              data: { group_id: group.groupId, intent_id: cmd.intent_id, at: cmd.now },
            },
          ]
        : [],
      daily_remaining: evaluation.daily_remaining,
      hourly_tx_remaining: evaluation.hourly_tx_remaining,
    };
  }

  const entry = evaluation.entry!;
  const budgeted = reservesOn(entry, cmd.action);
  const groupLimited = evaluation.group !== undefined;
  const approval =
    evaluation.hold &&
    approvalRequest(
      cmd,
      state,
      evaluation.hold,
      evaluation.trips ?? [],
      budgeted ? entry : undefined,
      groupLimited,
    );
  const dailyAfter = spends(cmd.action)
    ? evaluation.daily_remaining.minus(cmd.value)
    : evaluation.daily_remaining;
  const hourlyAfter = evaluation.hourly_tx_remaining - 1;
  const common = {
    intent_id: cmd.intent_id,
    agent_id: agent.agentId,
    group_id: group.groupId,
    amount: amountText(cmd.amount),
    mint: cmd.mint,
    value: amountText(cmd.value),
    spends: spends(cmd.action),
    counterparty: cmd.counterparty,
    entry_id: entry.entryId,
    ...(budgeted && { budget_entry_id: entry.entryId }),
    ...(groupLimited && { group_limited: true as const }),
    ...(cmd.task_id !== undefined && { task_id: cmd.task_id }),
    ...(cmd.idempotency_key !== undefined && { idempotency_key: cmd.idempotency_key }),
    daily_remaining_after: amountText(dailyAfter),
    hourly_tx_remaining_after: hourlyAfter,
    ...(budgeted &&
      evaluation.budget_remaining !== undefined && {
        budget_remaining_after: amountText(evaluation.budget_remaining.minus(cmd.value)),
      }),
    ...(approval && { held: { approval_id: approval.approval_id, expires_at: approval.expires_at } }),
    at: cmd.now,
  };
  const data = (
    cmd.action === 'transfer'
      ? {
          ...common,
          action: 'transfer',
          protocol_fee: amountText(evaluation.fee!.protocol_fee),
          net_amount: amountText(evaluation.fee!.net_amount),
          ...(cmd.memo !== undefined && { memo: cmd.memo }),
          ...(cmd.memo_sha256 !== undefined && { memo_sha256: cmd.memo_sha256 }),
          ...(cmd.x402 !== undefined && { x402: cmd.x402 }),
        }
      : { ...common, action: cmd.action, params: cmd.params ?? {} }
  ) as IntentData;
  return {
    accepted: true,
    evaluation,
    agentEvents: [{ type: 'intent.accepted', data }, ...tripped(evaluation.trips ?? [], cmd, agent)],
    budgetEvents:
      budgeted && !ownReservation
        ? [
            {
              type: 'budget.reserved',
              data: {
                entry_id: entry.entryId,
                intent_id: cmd.intent_id,
                agent_id: agent.agentId,
                amount: amountText(cmd.value),
                at: cmd.now,
              },
            },
          ]
        : [],
    groupEvents:
      groupLimited && !evaluation.group!.own
        ? [
            {
              type: 'group.spend_counted',
              data: {
                group_id: group.groupId,
                intent_id: cmd.intent_id,
                agent_id: agent.agentId,
                value: amountText(cmd.value),
                spends: spends(cmd.action),
                at: cmd.now,
              },
            },
          ]
        : [],
    ...(approval && { approval }),
    daily_remaining: dailyAfter,
    hourly_tx_remaining: hourlyAfter,
  };
}

/** The guard's trips on a spend, as events of the agent's stream. */
const tripped = (trips: readonly GuardTrip[], cmd: IntentCommand, agent: AgentState): AgentEvent[] =>
  trips.map((trip) => ({
    type: 'guard.tripped',
    data: {
      ...trip,
      agent_id: agent.agentId,
      group_id: agent.groupId,
      intent_id: cmd.intent_id,
      at: cmd.now,
    },
  }));

/** The approval a held intent asks for: the rule's approvers, quorum and ttl at this moment, and the message they sign. */
function approvalRequest(
  cmd: IntentCommand,
  state: DecisionState,
  reason: HoldReason,
  trips: readonly GuardTrip[],
  budgetEntry: AllowEntry | undefined,
  groupLimited: boolean,
): ApprovalRequested['data'] {
  const rule = approvalRule(state.group, state.agent, trips.length > 0);
  const terms = {
    approval_id: approvalIdOf(state.group.groupId, cmd.intent_id),
    group_id: state.group.groupId,
    agent_id: state.agent.agentId,
    action: cmd.action,
    amount: amountText(cmd.amount),
    mint: cmd.mint,
    counterparty: cmd.counterparty!,
    ...(cmd.idempotency_key !== undefined && { idempotency_key: cmd.idempotency_key }),
    expires_at: cmd.now + rule.ttlSeconds * 1000,
  };
  return {
    ...terms,
    intent_id: cmd.intent_id,
    value_in_base: amountText(cmd.value),
    reason,
    ...(trips.length > 0 && { guard: [...trips] }),
    approvers: [...rule.approvers],
    quorum: rule.quorum,
    ...(budgetEntry && { budget_entry_id: budgetEntry.entryId }),
    ...(groupLimited && { group_limited: true as const }),
    requested_at: cmd.now,
    message: approvalMessage(terms),
    at: cmd.now,
  };
}

export interface Simulation {
  would_succeed: boolean;
  reason?: BlockCode | 'approval_required';
  /** What the real decision would tell the agent, with `reason`. */
  message?: string;
  daily_remaining: Big;
  hourly_tx_remaining: number;
  estimated_fee: Big;
  checks: Check[];
  /** Type-1 entries: what the budget still allows, and how long the entry lives. */
  budget_remaining?: Big;
  ttl_remaining_ms?: number;
  /** The guard's rules that would hold it (`approval_required`) or freeze the agent (`agent_frozen`). */
  held_by?: GuardRuleKind[];
}

/** Dry-runs an intent (a transfer unless the command names another action) through the same evaluation as the real one; emits nothing. */
export function simulateIntent(
  cmd: Omit<IntentCommand, 'action'> & { action?: Action },
  state: DecisionState,
): Simulation {
  const evaluation = evaluateIntent({ ...cmd, action: cmd.action ?? 'transfer' }, state);
  return {
    would_succeed: evaluation.failure === undefined && evaluation.hold === undefined,
    ...(evaluation.failure !== undefined && { reason: evaluation.failure, message: evaluation.message }),
    ...(evaluation.failure === undefined &&
      evaluation.hold !== undefined && {
        reason: 'approval_required' as const,
        message: evaluation.trips
          ? `${ERROR_CATALOGUE.approval_required.message} Held by the guard: ${evaluation.trips.map((t) => `${t.rule} (${t.words})`).join('; ')}.`
          : ERROR_CATALOGUE.approval_required.message,
      }),
    daily_remaining: evaluation.daily_remaining,
    hourly_tx_remaining: evaluation.hourly_tx_remaining,
    estimated_fee: evaluation.fee?.protocol_fee ?? new Big(0),
    checks: evaluation.checks,
    ...(evaluation.budget_remaining !== undefined && { budget_remaining: evaluation.budget_remaining }),
    ...(evaluation.ttl_remaining_ms !== undefined && { ttl_remaining_ms: evaluation.ttl_remaining_ms }),
    ...(evaluation.trips && { held_by: evaluation.trips.map((t) => t.rule) }),
  };
}

/** Dry-runs a transfer through the same evaluation as the real one; emits nothing. */
export const simulateTransfer = (cmd: Omit<IntentCommand, 'action'>, state: DecisionState): Simulation =>
  simulateIntent({ ...cmd, action: 'transfer' }, state);

export type IntentOutcome =
  | {
      status: 'confirmed';
      tx_sig: string;
      received?: { amount: Big; mint: string };
      /** The SOL fee the service's transaction paid (lamports) and its fee payer, read from its signed bytes. */
      solFee?: { lamports: bigint; payer: string };
    }
  | { status: 'failed'; code: IntentFailedCode; message: string };
type IntentFailedCode = Extract<AgentEvent, { type: 'intent.failed' }>['data']['code'];

const THRESHOLD = new Big('0.8');

/**
 * Settles an accepted intent with its outcome: confirmed keeps it counted (and may cross the 80 %
 * alert threshold of the daily limit or the hourly cap), failed releases what it reserved.
 * Idempotent: an intent that is unknown or already settled yields no events.
 */
export function decideSettleIntent(
  cmd: { intent_id: string; outcome: IntentOutcome; now: number },
  agent: AgentState,
): AgentEvent[] {
  const item = agent.intents.get(cmd.intent_id);
  if (!item || item.status !== 'reserved') return [];
  const base = { intent_id: cmd.intent_id, agent_id: agent.agentId, at: cmd.now };
  // An x402 payment that landed is confirmed by its own transaction, whatever became of the fee's
  // after it (the fee's, when it landed, goes beside it): money that left is never given back as room.
  const paid = item.x402?.settled;
  if (cmd.outcome.status === 'failed' && !paid) {
    return [
      { type: 'intent.failed', data: { ...base, code: cmd.outcome.code, message: cmd.outcome.message } },
    ];
  }
  const confirmed = cmd.outcome.status === 'confirmed' ? cmd.outcome : undefined;
  const events: AgentEvent[] = [
    {
      type: 'intent.confirmed',
      data: {
        ...base,
        tx_sig: paid ? paid.tx_sig : confirmed!.tx_sig,
        ...(paid && confirmed && { fee_tx_sig: confirmed.tx_sig }),
        ...(paid?.resource && { resource: paid.resource }),
        ...(confirmed?.received && {
          received_amount: amountText(confirmed.received.amount),
          received_mint: confirmed.received.mint,
        }),
        ...(confirmed?.solFee && {
          sol_fee_lamports: String(confirmed.solFee.lamports),
          fee_payer: confirmed.solFee.payer,
        }),
      },
    },
  ];
  const { daily_limit, hourly_tx_cap } = agent.limits;
  const spentBefore = spentInDay(agent, cmd.now, 'confirmed');
  const spentAfter = item.spends ? spentBefore.plus(item.value) : spentBefore;
  const opsBefore = opsInHour(agent, cmd.now, 'confirmed');
  const opsAfter = opsBefore + 1;
  const crossed = (before: Big, after: Big, limit: Big) =>
    limit.gt(0) && before.lt(limit.times(THRESHOLD)) && after.gte(limit.times(THRESHOLD));
  const threshold = (kind: 'daily' | 'hourly'): LimitThreshold => ({
    type: 'policy.limit_threshold',
    data: {
      agent_id: agent.agentId,
      threshold: kind,
      spent_today: amountText(spentAfter),
      daily_limit: amountText(daily_limit),
      hourly_count: opsAfter,
      hourly_tx_cap,
      at: cmd.now,
    },
  });
  if (crossed(spentBefore, spentAfter, daily_limit)) events.push(threshold('daily'));
  if (crossed(new Big(opsBefore), new Big(opsAfter), new Big(hourly_tx_cap)))
    events.push(threshold('hourly'));
  return events;
}
