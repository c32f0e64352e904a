/**
 * The guard: the group's own limits over all its agents and its guard rules, read by its members and
 * auditors, set by an admin (a lift or a rise, a rule removed or loosened, is a proposal: `202`). Bodies and path parameters pass their schemas
 * (shared/src/contract/operator/guard.ts) before anything is read; the rules are
 * shared/src/domain/group-limits.ts and guard.ts, the flow shared/src/application/guard.ts.
 */
import {
  OPERATOR_GUARD,
  getGroupLimits,
  getGuard,
  governed,
  type GroupLimitsRequest,
  type GuardRequest,
} from '@tokenops/shared';
import type { ApiDeps } from '../../deps';
import { defineRoute, type Route } from '../../http/operations';
import { operatorCalls, replyGoverned } from '../common';

export function guardRoutes(deps: ApiDeps): Route[] {
  const { ctx } = deps;
  const rows = OPERATOR_GUARD.operations;
  const { wallet, visible } = operatorCalls(deps);
  return [
    defineRoute(rows.getGroupLimits, async ({ req, param, reply }) =>
      reply(await getGroupLimits(ctx, await wallet(req), param('group'))),
    ),
    defineRoute(rows.setGroupLimits, async ({ req, res, param, body, reply }) => {
      const w = await wallet(req);
      const b = body<GroupLimitsRequest>();
      replyGoverned(
        reply,
        await visible(res, () => governed(ctx, w, param('group'), 'group.limits', { ...b })),
      );
    }),
    defineRoute(rows.getGuard, async ({ req, param, reply }) =>
      reply(await getGuard(ctx, await wallet(req), param('group'))),
    ),
    defineRoute(rows.setGuard, async ({ req, res, param, body, reply }) => {
      const w = await wallet(req);
      const b = body<GuardRequest>();
      replyGoverned(
        reply,
        await visible(res, () => governed(ctx, w, param('group'), 'group.guard', { ...b })),
      );
    }),
  ];
}
