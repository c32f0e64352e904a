/**
 * Groups: one created owned by the signed-in wallet (if ORCHESTRATOR_WALLETS lets it), the caller's
 * groups, a group as it stands. Every body and path parameter passes its schema
 * (shared/src/contract/operator/groups.ts) before anything is read or written.
 */
import {
  OPERATOR_GROUPS,
  ServiceError,
  createGroup,
  describeGroup,
  governed,
  validationError,
  listGroups,
  type CreateGroupRequest,
  type UpdateGroupRequest,
} from '@tokenops/shared';
import { groupsOfMember } from '@tokenops/projections';
import type { ApiDeps } from '../../deps';
import { defineRoute, type Route } from '../../http/operations';
import { limitsInput, operatorCalls, replyGoverned } from '../common';

export function groupRoutes(deps: ApiDeps): Route[] {
  const rows = OPERATOR_GROUPS.operations;
  const { wallet, visible } = operatorCalls(deps);
  return [
    defineRoute(rows.createGroup, async ({ req, res, body, reply }) => {
      const w = await wallet(req);
      if (!deps.operators.mayCreateGroups(w))
        throw new ServiceError('forbidden', 'This wallet may not create groups (ORCHESTRATOR_WALLETS).');
      const b = body<CreateGroupRequest>();
      reply(
        await visible(res, () => createGroup(deps.ctx, w, { limits: limitsInput(b.default_limits ?? b) })),
      );
    }),
    // The caller's groups: which ones, from the read models (the groups it is a member of); its role and
    // what each holds, from the log. A group just created is listed: its creation answered once the views had it.
    defineRoute(rows.listGroups, async ({ req, reply }) => {
      const w = await wallet(req);
      reply(await listGroups(deps.ctx, w, await groupsOfMember(deps.views, w)));
    }),
    defineRoute(rows.getGroup, async ({ req, param, reply }) =>
      reply(await describeGroup(deps.ctx, await wallet(req), param('group'))),
    ),
    // Lowering a default, a name, a description: at once; raising a default: a proposal (202).
    defineRoute(rows.updateGroup, async ({ req, res, param, body, reply }) => {
      const w = await wallet(req);
      const b = body<UpdateGroupRequest>();
      if (Object.keys(b).length === 0)
        throw validationError([
          {
            path: '',
            issue: 'must name at least one of per_tx_limit, daily_limit, hourly_tx_cap, name, description',
          },
        ]);
      const group = param('group');
      replyGoverned(reply, await visible(res, () => governed(deps.ctx, w, group, 'group.update', { ...b })));
    }),
  ];
}
