/**
 * Spends held for a person (design.md "Approvals"): the group's policy, the held spends, approving (an
 * approver's wallet signs the approval's message) and rejecting, and the preview of a proposed policy
 * over the group's log. The rules are shared/src/domain/approval.ts.
 */
import { object } from '../build';
import { contractTag } from '../openapi';
import { GroupLimitsRequest, GuardRequest, GuardTripView } from './guard';
import { AmountInput, Count, Identifier, Text, Timestamp, type Shape } from '../schemas';
import {
  AmountText,
  LIMIT_NAMES,
  LimitProperties,
  NullableAmount,
  NullableText,
  NullableTimestamp,
  OWNER,
  READERS,
  WRITE_HEADERS,
} from './common';

const Signature = {
  type: 'string',
  minLength: 1,
  maxLength: 128,
  pattern: '^[1-9A-HJ-NP-Za-km-z]+$',
} as const;

/** The group's approval policy. */
export const ApprovalPolicyRequest = object(
  {
    threshold: {
      ...NullableAmount,
      description: 'Spends valued above this (in the base token) are held; null: no threshold.',
    },
    approvers: {
      type: 'array',
      items: Identifier,
      minItems: 1,
      maxItems: 20,
      description: 'Operator wallets that approve; the owner alone when absent.',
    },
    quorum: {
      type: 'integer',
      format: 'int32',
      minimum: 1,
      maximum: 20,
      description: 'How many distinct approvers must sign (m of n); 1 when absent.',
    },
    ttl_seconds: {
      type: 'integer',
      format: 'int32',
      minimum: 1,
      maximum: 7 * 86_400,
      description: 'How long a held spend waits for a decision; 86400 when absent.',
    },
    new_recipients: {
      type: 'boolean',
      description: 'Hold the first spend to each allow-list entry, whatever its size.',
    },
  },
  ['approvers', 'quorum', 'ttl_seconds', 'new_recipients'],
);

export const ApprovalsQuery = object(
  { status: { type: 'string', enum: ['pending', 'approved', 'rejected', 'expired'] } },
  ['status'],
);

/** An approver's approval: its wallet's ed25519 signature (base58) of the approval's `message`. */
export const ApproveRequest = object({ signature: Signature });

/** A proposed policy to replay over the group's spends of a window (nothing is written). */
export const PolicyPreviewRequest = object(
  {
    ...LimitProperties,
    new_recipients: { type: 'boolean', description: 'Hold the first spend to each allow-list entry.' },
    whitelist_add: {
      type: 'array',
      maxItems: 100,
      items: object(
        {
          address: Identifier,
          type: { type: 'integer', format: 'int32', minimum: 0, maximum: 2, enum: [0, 1, 2] },
          approved_amount: AmountInput,
        },
        ['approved_amount'],
      ),
      description: 'Entries the proposal adds (a type-1 entry with its approved_amount, no TTL).',
    },
    whitelist_remove: {
      type: 'array',
      maxItems: 100,
      items: Identifier,
      description: 'Addresses the proposal takes off the allow-list.',
    },
    // The guard's shapes (guard.ts), as `PUT .../guard` and `PUT .../limits` take them.
    guard: GuardRequest,
    group_limits: GroupLimitsRequest,
    since: {
      type: 'string',
      format: 'date-time',
      maxLength: 64,
      description: 'The window starts here (7 days ago when absent) and ends now.',
    },
  },
  [...LIMIT_NAMES, 'new_recipients', 'whitelist_add', 'whitelist_remove', 'guard', 'group_limits', 'since'],
);

export const RejectRequest = object({ reason: { type: 'string', minLength: 1, maxLength: 200 } }, ['reason']);

export const ApprovalPolicyResponse = object({
  group_config_pda: Identifier,
  threshold: { anyOf: [AmountText, { type: 'null' }] },
  approvers: { type: 'array', items: Identifier },
  quorum: Count,
  ttl_seconds: Count,
  new_recipients: { type: 'boolean' },
});

export const Approval = object({
  approval_id: Text,
  group_config_pda: Identifier,
  agent_wallet_pda: Identifier,
  action: { type: 'string', enum: ['transfer', 'swap', 'deposit', 'withdraw'] },
  amount: AmountText,
  mint: Identifier,
  value_in_base: AmountText,
  counterparty: Identifier,
  idempotency_key: NullableText,
  requested_at: Timestamp,
  expires_at: Timestamp,
  status: { type: 'string', enum: ['pending', 'approved', 'rejected', 'expired'] },
  quorum: Count,
  approved_by: { type: 'array', items: Identifier, description: 'The approvers who signed, in order.' },
  message: {
    type: 'string',
    description:
      'What an approver signs (UTF-8, ed25519): the group, agent, action, amount, mint, counterparty, idempotency key and expiry.',
  },
  hold_reason: {
    type: 'string',
    enum: ['threshold', 'new_recipient', 'guard'],
    description:
      'Why it was held: its value is above the approval threshold, it is the first spend to its allow-list entry (`new_recipients`), or a guard rule held it (and nothing else did).',
  },
  guard: {
    type: 'array',
    description:
      'The guard’s rules that held it, whatever `hold_reason` is (a spend above the threshold may trip a rule too), each with what it measured.',
    items: GuardTripView,
  },
  decided_at: {
    ...NullableTimestamp,
    description: 'When it was decided (an expiry: when its time ran out); null while pending.',
  },
  rejected_by: {
    anyOf: [Identifier, { type: 'null' }],
    description:
      'The approver who rejected it; null otherwise, and for a rejection the service made (its agent revoked, or its emergency withdrawal).',
  },
  reason: {
    ...NullableText,
    description:
      'Why it was rejected: the approver’s reason, or `agent revoked` / `emergency withdrawal`; null otherwise.',
  },
});

const Verdict = {
  type: 'string',
  description: '`accepted`, `held` (for approval), or the code the spend was (or would be) blocked with.',
} as const;

const RuleKind = {
  type: 'string',
  enum: ['velocity', 'burst', 'new_counterparty', 'new_token', 'refusals', 'quiet_hours'],
} as const;

export const PolicyPreviewResponse = object({
  group_config_pda: Identifier,
  from: Timestamp,
  to: Timestamp,
  intents: { ...Count, description: 'Spend decisions of the window judged again.' },
  would_hold: { ...Count, description: 'How many of them the proposal would hold for approval.' },
  would_block: {
    type: 'object',
    additionalProperties: Count,
    description: 'How many it would block, by code.',
  },
  examples: {
    type: 'array',
    description: 'The first spends whose verdict the proposal changes.',
    items: object(
      {
        intent_id: Text,
        agent_wallet_pda: Identifier,
        action: { type: 'string', enum: ['transfer', 'swap', 'deposit', 'withdraw'] },
        amount: AmountText,
        counterparty: Identifier,
        at: Timestamp,
        was: Verdict,
        would: Verdict,
        held_by: {
          type: 'array',
          items: RuleKind,
          description:
            'The guard’s rules that would hold it (`held`) or freeze its agent with it (`agent_frozen`); absent when none trips.',
        },
      },
      ['held_by'],
    ),
  },
  would_freeze: {
    type: 'array',
    description:
      'The agents the proposal’s guard would have frozen, in order: the spend that froze each (a `freeze_agent` rule it tripped, or the refusal that reached the `refusals` count) and the rule. Their later spends of the window count under `agent_frozen` in `would_block`.',
    items: object({ agent: Identifier, at: Timestamp, rule: RuleKind }),
  },
});

export const ApprovalListResponse = object({ approvals: { type: 'array', items: Approval } });

export const OPERATOR_APPROVALS = contractTag({
  name: 'approvals',
  description: 'Spends held for a person: the policy, the held spends, approving (by signing) and rejecting.',
  schemas: {
    ApprovalPolicyRequest,
    ApprovalPolicyResponse,
    PolicyPreviewRequest,
    PolicyPreviewResponse,
    ApprovalsQuery,
    ApprovalListResponse,
    Approval,
    ApproveRequest,
    RejectRequest,
  },
  parameters: {
    approval: {
      type: 'string',
      maxLength: 81,
      pattern: '^[1-9A-HJ-NP-Za-km-z]{32,44}_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$',
    },
  },
  operations: {
    setApprovalPolicy: {
      method: 'put',
      path: '/orchestrator/groups/{group}/approval-policy',
      tag: 'approvals',
      operationId: 'setApprovalPolicy',
      headers: WRITE_HEADERS,
      summary:
        'Which spends wait for a person: above a threshold, or the first to each recipient; m of n approvers.',
      description:
        'Admins only. The approvers must be members of the group with role `approver` or `admin` (`400` otherwise). A policy that lets through without a person nothing the one in force did not (a threshold no higher, first-spend holds not turned off, the same approvers at a quorum no lower; a first policy) applies at once; any other is `202` with a proposal the group’s admins sign. An agent’s own approval_threshold (its limits) overrides the group’s threshold. Withdrawals are never held.',
      request: 'ApprovalPolicyRequest',
      response: 'ApprovalPolicyResponse',
      proposes: true,
      result: 'ApprovalPolicyResponse',
      errors: [...OWNER, 'invalid_amount'],
    },
    getApprovalPolicy: {
      method: 'get',
      path: '/orchestrator/groups/{group}/approval-policy',
      tag: 'approvals',
      operationId: 'getApprovalPolicy',
      summary:
        'The approval policy in force: which spends wait for a person, who decides, how many, how long.',
      description:
        'For the owner, the approvers and the auditors of the group. A group that never set one answers the policy that holds nothing: no threshold, no first-spend holds, the owner as the approver of what an agent’s own approval_threshold holds.',
      security: READERS,
      response: 'ApprovalPolicyResponse',
      errors: OWNER,
    },
    previewPolicy: {
      method: 'post',
      path: '/orchestrator/groups/{group}/policy-preview',
      tag: 'approvals',
      operationId: 'previewPolicy',
      summary:
        'What a proposed policy would have done to the group’s real spends of a window; writes nothing.',
      description:
        'Owner only. Replays the group’s log through the same decision functions with the proposal laid over the limits, the approval policy, the allow-list, the guard’s rules (`guard`, replacing the group’s; a bad field is `400 validation_error` naming it, `/guard/rules/0/factor`) and the group’s own limits (`group_limits`: a limit left out keeps the group’s, null lifts it): each spend of the window judged on the state its real decision had, the rules’ history before the window as their baseline. A spend a `freeze_agent` rule trips is `agent_frozen`, a refusal that reaches the `refusals` count keeps its code; either way the agent is in `would_freeze`, and its later spends of the window count under `agent_frozen`.',
      request: 'PolicyPreviewRequest',
      response: 'PolicyPreviewResponse',
      errors: [...OWNER, 'invalid_amount'],
    },
    listApprovals: {
      method: 'get',
      path: '/orchestrator/groups/{group}/approvals',
      tag: 'approvals',
      operationId: 'listApprovals',
      summary: 'The group’s held spends, newest first, by status.',
      description: 'For the owner, the approvers and the auditors of the group.',
      query: 'ApprovalsQuery',
      response: 'ApprovalListResponse',
      security: READERS,
      errors: OWNER,
    },
    getApproval: {
      method: 'get',
      path: '/orchestrator/approvals/{approval}',
      tag: 'approvals',
      operationId: 'getApproval',
      summary: 'One held spend: its terms, the message approvers sign, who signed, its status.',
      description:
        'One held spend: the intent’s terms, the message an approver signs, the approvers and who signed, its status and when it expires. The group’s owner, its approvers and its auditors may read it; anyone else is `403 forbidden`, an unknown approval `404 not_found`.',
      security: READERS,
      response: 'Approval',
      errors: OWNER,
    },
    approveSpend: {
      method: 'post',
      path: '/orchestrator/approvals/{approval}/approve',
      tag: 'approvals',
      operationId: 'approveSpend',
      summary:
        'Sign the approval’s message with the signed-in wallet; approved (and executed) at the quorum.',
      description:
        'The signature must be the signed-in wallet’s ed25519 signature (base58) of `message`; it is recorded in the log. The same approver twice counts once. conflict: decided already, or expired.',
      request: 'ApproveRequest',
      response: 'Approval',
      errors: [...OWNER, 'conflict'],
    },
    rejectSpend: {
      method: 'post',
      path: '/orchestrator/approvals/{approval}/reject',
      tag: 'approvals',
      operationId: 'rejectSpend',
      summary: 'Any approver rejects the held spend: it fails, and what it reserved is released.',
      description:
        'One approver’s rejection decides: the held spend fails (`403 approval_rejected` to the agent’s retry), nothing is sent, and what it reserved against the limits and the recipient’s budget is released. Only an approver of this approval may (else `403 forbidden`); an approval already decided or expired is `409 conflict`. Answered once the agent views include the release.',
      request: 'RejectRequest',
      optionalBody: true,
      response: 'Approval',
      errors: [...OWNER, 'conflict'],
    },
  },
});

export type ApprovalPolicyRequest = Shape<typeof ApprovalPolicyRequest>;
export type ApprovalsQuery = Shape<typeof ApprovalsQuery>;
export type ApproveRequest = Shape<typeof ApproveRequest>;
export type RejectRequest = Shape<typeof RejectRequest>;
export type PolicyPreviewRequest = Shape<typeof PolicyPreviewRequest>;
