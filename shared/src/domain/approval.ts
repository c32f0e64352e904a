/**
 * A person in the loop (design.md "Approvals"): the group's approval policy, which spends it holds,
 * and the approvals of the held spends. Pure: no I/O, no clock (`now` comes in with each command).
 *
 * A held spend is an accepted intent marked `held` (intent.ts decides it, and it counts against the
 * daily limit, the hourly cap and the entry's budget while held); its approval lives in the group's
 * approvals stream (`approvals-<group_id>`):
 *
 *   approval.requested   the hold, with what approvers sign (approvalMessage) and its expiry
 *   approval.signed      one approver's ed25519 signature of the message, verified before it is recorded
 *   approval.decided     approved (distinct signers reached the quorum), rejected (by any approver, or
 *                        by the agent's revocation or emergency withdrawal) or expired (its ttl passed)
 *
 * The stream is the one arbiter: a decision is appended at the revision it was made on, so two
 * approvers racing, or an approval racing the expiry, decide it once.
 */
import type Big from 'big.js';
import { ServiceError, validationError } from '../errors';
import type {
  Action,
  ApprovalDecided,
  ApprovalDecision,
  ApprovalEvent,
  ApprovalRequested,
  HoldReason,
} from './events';
import { DEFAULT_APPROVAL_TTL_SECONDS, type ApprovalPolicy } from './approval-policy';
import type { AgentState } from './agent';
import type { AllowEntry, GroupState } from './group';
import type { Fold } from './decider';
import { verifySignature } from './signatures';
import { groupScopedId, parseGroupScopedId } from './group-scoped-id';

/**
 * The group's approval policy in force: the one set, or, while none is, one that holds nothing (no
 * threshold, no first-spend holds), with the owner to approve what an agent's own threshold holds.
 */
export function groupApprovalPolicy(group: GroupState): ApprovalPolicy {
  return (
    group.approvalPolicy ?? {
      threshold: null,
      approvers: [group.ownerWallet],
      quorum: 1,
      ttlSeconds: DEFAULT_APPROVAL_TTL_SECONDS,
      newRecipients: false,
    }
  );
}

/**
 * The rule that applies to one agent: the group's policy, its threshold overridden by the agent's own.
 * A spend the guard holds (`byGuard`) while the group has no policy is approved by any one of the
 * group's admins and approvers (design.md "Settled details of the guard"), not by the owner alone.
 */
export function approvalRule(group: GroupState, agent: AgentState, byGuard = false): ApprovalPolicy {
  const policy = groupApprovalPolicy(group);
  const approvers =
    byGuard && group.approvalPolicy === undefined
      ? [...group.governance.members]
          .filter(([, role]) => role === 'admin' || role === 'approver')
          .map(([wallet]) => wallet)
      : policy.approvers;
  return { ...policy, approvers, threshold: agent.limits.approval_threshold ?? policy.threshold };
}

/**
 * Whether a spend that passed every other check is held, and why. Withdrawals are never held (they
 * bring money back). `approved` is the set of counterparties a person already approved a spend to
 * (the approvals stream's), which `new_recipients` asks about.
 */
export function holdReason(
  spend: { action: Action; value: Big },
  entry: AllowEntry | undefined,
  rule: ApprovalPolicy,
  approved: ReadonlySet<string> | undefined,
): HoldReason | undefined {
  if (spend.action === 'withdraw') return undefined;
  if (rule.threshold !== null && spend.value.gt(rule.threshold)) return 'threshold';
  if (rule.newRecipients && entry && !(approved ?? new Set()).has(entry.address)) return 'new_recipient';
  return undefined;
}

// ---- the approvals of one group ----

export type ApprovalStatus = 'pending' | ApprovalDecision;

export interface ApprovalRecord {
  requested: ApprovalRequested['data'];
  /** Signatures by approver, in the order recorded. */
  signatures: ReadonlyMap<string, { signature: string; at: number }>;
  status: ApprovalStatus;
  decided?: ApprovalDecided['data'];
}

export interface ApprovalsState {
  approvals: ReadonlyMap<string, ApprovalRecord>;
  /** Counterparties a person approved a spend to (new_recipients holds only the first). */
  approvedCounterparties: ReadonlySet<string>;
}

export const initialApprovalsState = (): ApprovalsState => ({
  approvals: new Map(),
  approvedCounterparties: new Set(),
});

export function evolveApprovals(state: ApprovalsState, event: ApprovalEvent): ApprovalsState {
  const approvals = new Map(state.approvals);
  switch (event.type) {
    case 'approval.requested':
      approvals.set(event.data.approval_id, {
        requested: event.data,
        signatures: new Map(),
        status: 'pending',
      });
      return { ...state, approvals };
    case 'approval.signed': {
      const record = state.approvals.get(event.data.approval_id);
      if (!record) return state;
      const signatures = new Map(record.signatures);
      signatures.set(event.data.approver, { signature: event.data.signature, at: event.data.at });
      approvals.set(record.requested.approval_id, { ...record, signatures });
      return { ...state, approvals };
    }
    case 'approval.decided': {
      const record = state.approvals.get(event.data.approval_id);
      if (!record) return state;
      approvals.set(record.requested.approval_id, {
        ...record,
        status: event.data.decision,
        decided: event.data,
      });
      const approvedCounterparties =
        event.data.decision === 'approved'
          ? new Set(state.approvedCounterparties).add(record.requested.counterparty)
          : state.approvedCounterparties;
      return { approvals, approvedCounterparties };
    }
  }
}

export const approvalsFold: Fold<ApprovalsState, ApprovalEvent> = {
  initialState: initialApprovalsState,
  evolve: evolveApprovals,
};

export const foldApprovals = (events: readonly ApprovalEvent[]): ApprovalsState =>
  events.reduce(evolveApprovals, initialApprovalsState());

/** An approval's id names its group and its intent, so any route can find its stream. */
export const approvalIdOf = (groupId: string, intentId: string): string => groupScopedId(groupId, intentId);

export function parseApprovalId(approvalId: string): { groupId: string; intentId: string } | undefined {
  const parsed = parseGroupScopedId(approvalId);
  return parsed && { groupId: parsed.groupId, intentId: parsed.id };
}

type MessageFields = Pick<
  ApprovalRequested['data'],
  | 'approval_id'
  | 'group_id'
  | 'agent_id'
  | 'action'
  | 'amount'
  | 'mint'
  | 'counterparty'
  | 'idempotency_key'
  | 'expires_at'
>;

/** What an approver signs: every term of the spend, one per line, so a signature approves exactly this. */
export const approvalMessage = (f: MessageFields): string =>
  [
    'TokenOps approval of a held spend',
    `approval: ${f.approval_id}`,
    `group: ${f.group_id}`,
    `agent: ${f.agent_id}`,
    `action: ${f.action}`,
    `amount: ${f.amount}`,
    `mint: ${f.mint}`,
    `counterparty: ${f.counterparty}`,
    `idempotency_key: ${f.idempotency_key ?? ''}`,
    `expires_at: ${new Date(f.expires_at).toISOString()}`,
  ].join('\n');

/** Records a hold's approval request (nothing when it is recorded already: deciding again is safe). */
export function decideRequestApproval(
  requested: ApprovalRequested['data'],
  state: ApprovalsState,
): ApprovalEvent[] {
  return state.approvals.has(requested.approval_id) ? [] : [{ type: 'approval.requested', data: requested }];
}

/** The status an approval has at `now`: a pending one past its expiry is expired, recorded or not yet. */
export function statusAt(record: ApprovalRecord, now: number): ApprovalStatus {
  return record.status === 'pending' && now >= record.requested.expires_at ? 'expired' : record.status;
}

function decided(
  record: ApprovalRecord,
  decision: ApprovalDecision,
  by: string[],
  now: number,
  reason?: string,
) {
  const r = record.requested;
  return {
    type: 'approval.decided' as const,
    data: {
      approval_id: r.approval_id,
      intent_id: r.intent_id,
      group_id: r.group_id,
      agent_id: r.agent_id,
      decision,
      by,
      ...(reason !== undefined && { reason }),
      at: now,
    },
  };
}

function pendingOne(state: ApprovalsState, approvalId: string, approver: string): ApprovalRecord {
  const record = state.approvals.get(approvalId);
  if (!record) throw new ServiceError('not_found', 'No such approval.');
  if (!record.requested.approvers.includes(approver))
    throw new ServiceError('forbidden', 'This wallet is not an approver of this approval.');
  return record;
}

/**
 * Decides on an approval that is no longer pending, or whose time ran out: an expiry is recorded (so
 * the caller's request records it, then is refused), anything already decided is refused.
 */
function closed(record: ApprovalRecord, now: number): ApprovalEvent[] | undefined {
  if (record.status !== 'pending')
    throw new ServiceError('conflict', `The approval is ${record.status} already.`);
  return now >= record.requested.expires_at ? [decided(record, 'expired', [], now)] : undefined;
}

export interface Approve {
  approval_id: string;
  /** The signed-in wallet. */
  approver: string;
  /** Its ed25519 signature (base58) of the approval's message. */
  signature: string;
  now: number;
}

/**
 * An approver signs. The signature must be the caller's own over the message; the same approver again
 * adds nothing (it counts once); when distinct signers reach the quorum, the approval is approved.
 */
export function decideApprove(cmd: Approve, state: ApprovalsState): ApprovalEvent[] {
  const record = pendingOne(state, cmd.approval_id, cmd.approver);
  if (!verifySignature(cmd.approver, record.requested.message, cmd.signature))
    throw validationError([
      {
        path: '/signature',
        issue: "must be the signed-in wallet's ed25519 signature (base58) of the message",
      },
    ]);
  const expired = closed(record, cmd.now);
  if (expired) return expired;
  if (record.signatures.has(cmd.approver)) return [];
  const events: ApprovalEvent[] = [
    {
      type: 'approval.signed',
      data: {
        approval_id: cmd.approval_id,
        intent_id: record.requested.intent_id,
        group_id: record.requested.group_id,
        approver: cmd.approver,
        signature: cmd.signature,
        at: cmd.now,
      },
    },
  ];
  const signers = [...record.signatures.keys(), cmd.approver];
  if (signers.length >= record.requested.quorum) events.push(decided(record, 'approved', signers, cmd.now));
  return events;
}

/** Any approver rejects a pending approval. */
export function decideReject(
  cmd: { approval_id: string; approver: string; reason?: string; now: number },
  state: ApprovalsState,
): ApprovalEvent[] {
  const record = pendingOne(state, cmd.approval_id, cmd.approver);
  return closed(record, cmd.now) ?? [decided(record, 'rejected', [cmd.approver], cmd.now, cmd.reason)];
}

/** The expiry: a pending approval past its time is expired (nothing otherwise: the scheduler may ask twice). */
export function decideExpire(
  cmd: { approval_id: string; now: number },
  state: ApprovalsState,
): ApprovalEvent[] {
  const record = state.approvals.get(cmd.approval_id);
  if (!record || record.status !== 'pending' || cmd.now < record.requested.expires_at) return [];
  return [decided(record, 'expired', [], cmd.now)];
}

/** The agent was revoked or emergency-withdrawn: every approval of it still pending is rejected. */
export function decideRejectAgentHolds(
  cmd: { agent_id: string; reason: string; now: number },
  state: ApprovalsState,
): ApprovalEvent[] {
  return [...state.approvals.values()]
    .filter((r) => r.status === 'pending' && r.requested.agent_id === cmd.agent_id)
    .map((r) => decided(r, 'rejected', [], cmd.now, cmd.reason));
}

/**
 * What a decided approval means for its held intent: a rejection or an expiry fails it (releasing what
 * it reserved); an approval, or none yet, leaves it to run.
 */
export function refusedHold(
  record: ApprovalRecord,
): { status: 'failed'; code: 'approval_rejected' | 'approval_expired'; message: string } | undefined {
  const id = record.requested.approval_id;
  if (record.status === 'rejected') {
    const why = record.decided?.reason;
    return {
      status: 'failed',
      code: 'approval_rejected',
      message: `Approval ${id} was rejected${why ? ` (${why})` : ''}; nothing was sent.`,
    };
  }
  if (record.status === 'expired')
    return {
      status: 'failed',
      code: 'approval_expired',
      message: `Approval ${id} expired undecided; nothing was sent.`,
    };
  return undefined;
}

/** The operator surface's Approval object. */
export function approvalView(record: ApprovalRecord, now: number) {
  const r = record.requested;
  const status = statusAt(record, now);
  return {
    approval_id: r.approval_id,
    group_config_pda: r.group_id,
    agent_wallet_pda: r.agent_id,
    action: r.action,
    amount: r.amount,
    mint: r.mint,
    value_in_base: r.value_in_base,
    counterparty: r.counterparty,
    idempotency_key: r.idempotency_key ?? null,
    requested_at: new Date(r.requested_at).toISOString(),
    expires_at: new Date(r.expires_at).toISOString(),
    status,
    quorum: r.quorum,
    approved_by: [...record.signatures.keys()],
    message: r.message,
    hold_reason: r.reason,
    guard: (r.guard ?? []).map(({ rule, action, figures, words }) => ({ rule, action, figures, words })),
    ...decisionView(record, status),
  };
}

/**
 * When and how an approval was decided: when, the person who rejected it (none for a rejection the
 * service made: the agent revoked, its emergency withdrawal), and why. An approval whose time ran out
 * is expired at its expiry, recorded or not yet.
 */
function decisionView(record: ApprovalRecord, status: ApprovalStatus) {
  const d = record.decided;
  const expired = !d && status === 'expired';
  return {
    decided_at: d
      ? new Date(d.at).toISOString()
      : expired
        ? new Date(record.requested.expires_at).toISOString()
        : null,
    rejected_by: d?.decision === 'rejected' ? (d.by[0] ?? null) : null,
    reason: d?.reason ?? null,
  };
}
