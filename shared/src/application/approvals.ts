/**
 * Approvals of held spends (domain/approval.ts has the rules): an admin sets the group's policy (a
 * proposal when it loosens it);
 * approvers list, read, approve (by signing) and reject; the expiry scheduler expires what waited past
 * its ttl; a revocation or an emergency withdrawal rejects the agent's held spends.
 *
 * The approvals stream decides; what follows from a decision is then done at once by whoever decided
 * it: a rejection or an expiry fails the held intent (`approval_rejected` / `approval_expired`), which
 * releases what it reserved (daily, hourly, budget); an approval is left to the executor relay, which
 * turns `approval.decided` into a job. The relay also does so for rejections and expiries, and the
 * executor settles those the same way, so a decider that dies between the two steps loses nothing.
 */
import {
  approvalPolicyWidens,
  approvalView,
  authorizeOperator,
  authorizeReader,
  decideApprove,
  decideExpire,
  decideReject,
  decideRejectAgentHolds,
  decideSetApprovalPolicy,
  evolveApprovals,
  policyFromData,
  parseApprovalId,
  groupApprovalPolicy,
  policyToWire,
  refusedHold,
  statusAt,
  type ApprovalRecord,
  type ApprovalsState,
  type ApprovalStatus,
  type GroupState,
  type SetApprovalPolicy,
} from '../domain';
import {
  streams,
  type ApprovalDecided,
  type ApprovalEvent,
  type ApprovalPolicySet,
  type ApprovalRequested,
  type IntentData,
} from '../domain/events';
import { ServiceError } from '../errors';
import type { Context } from './context';
import { onGroup, type GovernedAction } from './governed';
import { settleIntent, type SettleContext } from './settle';

export type ApprovalContext = SettleContext & Pick<Context, 'approvals'>;

export const APPROVAL_POLICY_ACTIONS = {
  /**
   * Puts an approval policy in force (the route's body): at once when it narrows what passes without
   * a person (domain/approval-policy.ts `approvalPolicyWidens`; a first policy narrows), a proposal
   * otherwise.
   */
  'approval_policy.set': onGroup(
    (params, group, now) =>
      decideSetApprovalPolicy({ ...(params as Omit<SetApprovalPolicy, 'now'>), now }, group),
    (groupId, _after, [set]) => policyToWire(groupId, policyFromData((set as ApprovalPolicySet).data)),
    {
      widens: (params, group) => {
        const [set] = decideSetApprovalPolicy(
          { ...(params as Omit<SetApprovalPolicy, 'now'>), now: 0 },
          group,
        );
        return approvalPolicyWidens(group.approvalPolicy, policyFromData(set!.data));
      },
    },
  ),
} satisfies Record<string, GovernedAction>;

/**
 * The group's approval policy in force (none set: one that holds nothing), for whoever may read its
 * approvals: a change starts from what holds, not from an empty form.
 */
export async function getApprovalPolicy(ctx: Context, wallet: string, groupId: string) {
  const group = (await ctx.groups.load(streams.group(groupId))).state;
  mayRead(group, wallet);
  return policyToWire(groupId, groupApprovalPolicy(group));
}

/** Who may read a group's approvals: its owner, its auditors, and the wallets its policy names. */
function mayRead(group: GroupState, wallet: string, record?: ApprovalRecord): void {
  if (record?.requested.approvers.includes(wallet) || group.approvalPolicy?.approvers.includes(wallet))
    return;
  authorizeReader(group, wallet);
}

export async function listApprovals(ctx: Context, wallet: string, groupId: string, status?: ApprovalStatus) {
  const group = (await ctx.groups.load(streams.group(groupId))).state;
  mayRead(group, wallet);
  const { state } = await ctx.approvals.load(streams.approvals(groupId));
  const now = ctx.now();
  const approvals = [...state.approvals.values()]
    .filter((r) => status === undefined || statusAt(r, now) === status)
    .reverse()
    .map((r) => approvalView(r, now));
  return { approvals };
}

async function located(ctx: Context, approvalId: string) {
  const id = parseApprovalId(approvalId);
  if (!id) throw new ServiceError('not_found', 'No such approval.');
  const group = (await ctx.groups.load(streams.group(id.groupId))).state;
  if (!group.exists) throw new ServiceError('not_found', 'No such approval.');
  return { stream: streams.approvals(id.groupId), group };
}

/**
 * The approval's group, when `wallet` may decide held spends in it now: a member with role approver or
 * admin (one who stopped being one left the approvers at once, whatever the approval named).
 */
async function approverOf(ctx: Context, wallet: string, approvalId: string) {
  const found = await located(ctx, approvalId);
  authorizeOperator(found.group, wallet, 'approve');
  return found;
}

export async function getApproval(ctx: Context, wallet: string, approvalId: string) {
  const { stream, group } = await located(ctx, approvalId);
  const record = (await ctx.approvals.load(stream)).state.approvals.get(approvalId);
  if (!record) throw new ServiceError('not_found', 'No such approval.');
  mayRead(group, wallet, record);
  return approvalView(record, ctx.now());
}

/** An approver signs; the answer is the approval as it stands (approved once the quorum is reached). */
export async function signApproval(ctx: Context, wallet: string, approvalId: string, signature: string) {
  const { stream } = await approverOf(ctx, wallet, approvalId);
  return decideAndFollow(ctx, stream, approvalId, (state, now) =>
    decideApprove({ approval_id: approvalId, approver: wallet, signature, now }, state),
  );
}

/** Any approver rejects: the held intent fails and gives back what it reserved. */
export async function rejectApproval(ctx: Context, wallet: string, approvalId: string, reason?: string) {
  const { stream } = await approverOf(ctx, wallet, approvalId);
  return decideAndFollow(ctx, stream, approvalId, (state, now) =>
    decideReject({ approval_id: approvalId, approver: wallet, ...(reason && { reason }), now }, state),
  );
}

async function decideAndFollow(
  ctx: Context,
  stream: string,
  approvalId: string,
  decide: (state: ApprovalsState, now: number) => ApprovalEvent[],
) {
  // This instance's cache may be behind what another instance appended (the request, a signature):
  // the repository decides a refusal again on the stored state before answering it.
  const after = await ctx.approvals.handle(stream, (state) => {
    const events = decide(state, ctx.now());
    return { events, result: events.reduce(evolveApprovals, state) };
  });
  const record = after.approvals.get(approvalId)!;
  await followDecision(ctx, record);
  if (record.status === 'expired')
    throw new ServiceError('conflict', 'The approval expired before it was decided; nothing was sent.');
  return approvalView(record, ctx.now());
}

/** What a rejection or an expiry does to the held intent: it fails, releasing its reservations. Idempotent. */
export async function followDecision(ctx: SettleContext, record: ApprovalRecord): Promise<void> {
  const outcome = refusedHold(record);
  if (outcome) await settleIntent(ctx, heldIntent(record.requested), outcome);
}

const heldIntent = (r: ApprovalRequested['data']) => ({
  intent_id: r.intent_id,
  agent_id: r.agent_id,
  group_id: r.group_id,
  counterparty: r.counterparty,
  ...(r.budget_entry_id !== undefined && { budget_entry_id: r.budget_entry_id }),
  ...(r.group_limited && { group_limited: r.group_limited }),
});

/** Expires one approval if its time has come (the scheduler's step; nothing twice). */
export async function expireApproval(
  ctx: ApprovalContext,
  groupId: string,
  approvalId: string,
): Promise<void> {
  const after = await ctx.approvals.handle(streams.approvals(groupId), (state) => {
    const events = decideExpire({ approval_id: approvalId, now: ctx.now() }, state);
    return { events, result: events.reduce(evolveApprovals, state) };
  });
  const record = after.approvals.get(approvalId);
  if (record) await followDecision(ctx, record);
}

/**
 * A held intent whose approval was never recorded (its decider died between the acceptance and the
 * request) expires all the same: past its time it fails, and gives back what it reserved.
 */
export async function expireHeld(ctx: ApprovalContext, intent: IntentData): Promise<void> {
  const held = intent.held!;
  const record = await approvalOf(ctx, intent.group_id, held.approval_id);
  if (record) return expireApproval(ctx, intent.group_id, held.approval_id);
  if (ctx.now() < held.expires_at) return;
  await settleIntent(ctx, intent, {
    status: 'failed',
    code: 'approval_expired',
    message: `Approval ${held.approval_id} expired undecided; nothing was sent.`,
  });
}

/** A revocation or an emergency withdrawal: the agent's held spends are rejected, their reservations released. */
export async function rejectAgentHolds(
  ctx: ApprovalContext,
  groupId: string,
  agentId: string,
  reason: string,
) {
  const decided = await ctx.approvals.handle(streams.approvals(groupId), (state) => {
    const events = decideRejectAgentHolds({ agent_id: agentId, reason, now: ctx.now() }, state);
    return { events, result: { events, state: events.reduce(evolveApprovals, state) } };
  });
  for (const e of decided.events as ApprovalDecided[])
    await followDecision(ctx, decided.state.approvals.get(e.data.approval_id)!);
}

/** The approval of a held intent as it stands (a retry of the agent's request asks). */
export async function approvalOf(ctx: Pick<Context, 'approvals'>, groupId: string, approvalId: string) {
  return (await ctx.approvals.load(streams.approvals(groupId))).state.approvals.get(approvalId);
}
