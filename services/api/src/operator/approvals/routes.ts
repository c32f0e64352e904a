/**
 * Approvals of held spends (design.md "Approvals"): the owner sets the group's policy; the owner, the
 * approvers and the auditors read it and the held spends; an approver approves by signing an approval's
 * message with its wallet, or rejects; the owner previews a proposed policy over the group's log.
 * Bodies, queries and path parameters pass their schemas before anything is read. The rules are
 * shared/src/domain/approval.ts, the flow shared/src/application/approvals.ts.
 */
import {
  OPERATOR_APPROVALS,
  getApproval,
  getApprovalPolicy,
  listApprovals,
  previewGroupPolicy,
  rejectApproval,
  governed,
  signApproval,
  type ApprovalPolicyRequest,
  type ApprovalsQuery,
  type ApproveRequest,
  type PolicyPreviewRequest,
  type RejectRequest,
} from '@tokenops/shared';
import type { ApiDeps } from '../../deps';
import { defineRoute, type Route } from '../../http/operations';
import { operatorCalls, replyGoverned } from '../common';

export function approvalRoutes(deps: ApiDeps): Route[] {
  const { ctx } = deps;
  const rows = OPERATOR_APPROVALS.operations;
  // A decision answers once the agent views include what it released (a rejection, an expiry).
  const { wallet, visible } = operatorCalls(deps);

  return [
    defineRoute(rows.setApprovalPolicy, async ({ req, res, param, body, reply }) => {
      const w = await wallet(req);
      const b = body<ApprovalPolicyRequest>();
      const group = param('group');
      replyGoverned(
        reply,
        await visible(res, () => governed(ctx, w, group, 'approval_policy.set', { ...b })),
      );
    }),
    defineRoute(rows.getApprovalPolicy, async ({ req, param, reply }) =>
      reply(await getApprovalPolicy(ctx, await wallet(req), param('group'))),
    ),
    // Nothing is written: the answer is the replay's.
    defineRoute(rows.previewPolicy, async ({ req, param, body, reply }) => {
      const w = await wallet(req);
      const b = body<PolicyPreviewRequest>();
      reply(await previewGroupPolicy(ctx, w, param('group'), b));
    }),
    defineRoute(rows.listApprovals, async ({ req, param, query, reply }) => {
      const w = await wallet(req);
      const q = query<ApprovalsQuery>();
      reply(await listApprovals(ctx, w, param('group'), q.status));
    }),
    defineRoute(rows.getApproval, async ({ req, param, reply }) =>
      reply(await getApproval(ctx, await wallet(req), param('approval'))),
    ),
    defineRoute(rows.approveSpend, async ({ req, res, param, body, reply }) => {
      const w = await wallet(req);
      const b = body<ApproveRequest>();
      reply(await visible(res, () => signApproval(ctx, w, param('approval'), b.signature)));
    }),
    defineRoute(rows.rejectSpend, async ({ req, res, param, body, reply }) => {
      const w = await wallet(req);
      const b = body<RejectRequest>();
      reply(await visible(res, () => rejectApproval(ctx, w, param('approval'), b.reason)));
    }),
  ];
}
