/**
 * A group's approval policy (design.md "Approvals"): which spends wait for a person, who approves, how
 * many of them, for how long. Its own module so the group's fold can keep it without importing the
 * approvals (approval.ts), which read the group. Pure.
 */
import type Big from 'big.js';
import { amountText, parseAmount } from '../money';
import { validationError } from '../errors';
import type { ApprovalPolicySet } from './events';
import { isAddress } from './tokens';
import { roleCan, roleOf, thresholdWidens, type GovernanceState } from './governance';

// ---- the policy ----

export interface ApprovalPolicy {
  /** In the base token; null: no threshold. */
  threshold: Big | null;
  approvers: readonly string[];
  quorum: number;
  ttlSeconds: number;
  newRecipients: boolean;
}

export const DEFAULT_APPROVAL_TTL_SECONDS = 86_400;
/** A held spend waits at most this long: its reservation must not outlive the windows by much. */
export const MAX_APPROVAL_TTL_SECONDS = 7 * 86_400;
const MAX_APPROVERS = 20;

export const policyFromData = (d: ApprovalPolicySet['data']): ApprovalPolicy => ({
  threshold: d.threshold === null ? null : parseAmount(d.threshold, 'threshold'),
  approvers: d.approvers,
  quorum: d.quorum,
  ttlSeconds: d.ttl_seconds,
  newRecipients: d.new_recipients,
});

export const policyToWire = (groupId: string, p: ApprovalPolicy) => ({
  group_config_pda: groupId,
  threshold: p.threshold === null ? null : amountText(p.threshold),
  approvers: [...p.approvers],
  quorum: p.quorum,
  ttl_seconds: p.ttlSeconds,
  new_recipients: p.newRecipients,
});

export interface SetApprovalPolicy {
  threshold?: unknown;
  approvers?: unknown;
  quorum?: unknown;
  ttl_seconds?: unknown;
  new_recipients?: unknown;
  now: number;
}

/** The owner sets the group's policy; every field is checked here (the schema checks the shapes). */
export function decideSetApprovalPolicy(
  cmd: SetApprovalPolicy,
  group: { groupId: string; ownerWallet: string; governance: GovernanceState },
): ApprovalPolicySet[] {
  const issues: { path: string; issue: string }[] = [];
  let threshold: string | null = null;
  if (cmd.threshold !== null && cmd.threshold !== undefined) {
    // A negative threshold is refused as an amount (invalid_amount), like every amount.
    threshold = amountText(parseAmount(cmd.threshold, 'threshold'));
  }
  const approvers = cmd.approvers === undefined ? [group.ownerWallet] : cmd.approvers;
  if (
    !Array.isArray(approvers) ||
    approvers.length === 0 ||
    approvers.length > MAX_APPROVERS ||
    !approvers.every((a) => typeof a === 'string' && isAddress(a))
  )
    issues.push({
      path: '/approvers',
      issue: `must be 1 to ${MAX_APPROVERS} wallets (base58 ed25519 public keys)`,
    });
  else if (new Set(approvers).size !== approvers.length)
    issues.push({ path: '/approvers', issue: 'must not name a wallet twice' });
  else {
    const outsiders = approvers.filter((a) => !roleCan(roleOf(group.governance, a), 'approve'));
    if (outsiders.length > 0)
      issues.push({
        path: '/approvers',
        issue: `must be members of the group with role approver or admin (${outsiders.join(', ')} ${outsiders.length === 1 ? 'is' : 'are'} not)`,
      });
  }
  const n = Array.isArray(approvers) ? approvers.length : 0;
  const quorum = cmd.quorum ?? 1;
  if (!Number.isSafeInteger(quorum) || (quorum as number) < 1 || (quorum as number) > n)
    issues.push({ path: '/quorum', issue: `must be an integer from 1 to the number of approvers (${n})` });
  const ttl = cmd.ttl_seconds ?? DEFAULT_APPROVAL_TTL_SECONDS;
  if (!Number.isSafeInteger(ttl) || (ttl as number) < 1 || (ttl as number) > MAX_APPROVAL_TTL_SECONDS)
    issues.push({ path: '/ttl_seconds', issue: `must be an integer from 1 to ${MAX_APPROVAL_TTL_SECONDS}` });
  const newRecipients = cmd.new_recipients ?? false;
  if (typeof newRecipients !== 'boolean')
    issues.push({ path: '/new_recipients', issue: 'must be a boolean' });
  if (issues.length > 0) throw validationError(issues);
  return [
    {
      type: 'group.approval_policy_set',
      data: {
        group_id: group.groupId,
        threshold,
        approvers: approvers as string[],
        quorum: quorum as number,
        ttl_seconds: ttl as number,
        new_recipients: newRecipients as boolean,
        at: cmd.now,
      },
    },
  ];
}

/**
 * An approval-policy change is narrowing when every spend it lets through without a person the old one
 * let through too (a threshold no higher, first-spend holds not turned off) and the same approvers
 * release held spends at a quorum no lower; setting a first policy is narrowing. Anything else (a
 * higher threshold, an approver more or fewer, a lower quorum, first-spend holds off) widens.
 */
export function approvalPolicyWidens(old: ApprovalPolicy | undefined, next: ApprovalPolicy): boolean {
  if (old === undefined) return false;
  const sameApprovers =
    old.approvers.length === next.approvers.length && next.approvers.every((a) => old.approvers.includes(a));
  return (
    thresholdWidens(old.threshold, next.threshold) ||
    (old.newRecipients && !next.newRecipients) ||
    !sameApprovers ||
    next.quorum < old.quorum
  );
}
