/**
 * Members and the governance policy: read by any member; every change a proposal (`202`) that the
 * group's admins sign (shared/src/application/proposals.ts), answered as it stands.
 */
import {
  OPERATOR_MEMBERS,
  getGovernance,
  listMembers,
  propose,
  type GovernanceRequest,
  type MemberRequest,
} from '@tokenops/shared';
import type { ApiDeps } from '../../deps';
import { defineRoute, type Route } from '../../http/operations';
import { operatorCalls } from '../common';

export function memberRoutes(deps: ApiDeps): Route[] {
  const { ctx } = deps;
  const rows = OPERATOR_MEMBERS.operations;
  const { wallet } = operatorCalls(deps);
  return [
    defineRoute(rows.listMembers, async ({ req, param, reply }) =>
      reply(await listMembers(ctx, await wallet(req), param('group'))),
    ),
    defineRoute(rows.addMember, async ({ req, param, body, reply }) => {
      const w = await wallet(req);
      const b = body<MemberRequest>();
      reply(await propose(ctx, w, param('group'), 'member.add', { wallet: b.wallet, role: b.role }));
    }),
    defineRoute(rows.removeMember, async ({ req, param, reply }) => {
      const w = await wallet(req);
      const group = param('group');
      reply(await propose(ctx, w, group, 'member.remove', { wallet: param('wallet') }));
    }),
    defineRoute(rows.getGovernance, async ({ req, param, reply }) =>
      reply(await getGovernance(ctx, await wallet(req), param('group'))),
    ),
    defineRoute(rows.setGovernance, async ({ req, param, body, reply }) => {
      const w = await wallet(req);
      const b = body<GovernanceRequest>();
      reply(
        await propose(ctx, w, param('group'), 'governance.set', {
          ...(b.quorum !== undefined && { quorum: b.quorum }),
          ...(b.delay_seconds !== undefined && { delay_seconds: b.delay_seconds }),
          ...(b.safe_destination !== undefined && { safe_destination: b.safe_destination }),
        }),
      );
    }),
  ];
}
