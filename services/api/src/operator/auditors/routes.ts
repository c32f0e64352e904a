/**
 * Auditors' access: the owner of a group grants and removes auditors (wallets that sign in like
 * operators, with the same challenge and the same token) and lists them. An auditor owns nothing, so
 * every operator route (which checks ownership) answers it 403; it reads the audit routes of its
 * groups (audit/routes.ts).
 */
import {
  OPERATOR_AUDITORS,
  grantAuditor,
  listAuditors,
  removeAuditor,
  type AuditorRequest,
} from '@tokenops/shared';
import type { ApiDeps } from '../../deps';
import { defineRoute, type Route } from '../../http/operations';
import { operatorCalls } from '../common';

export function auditorRoutes(deps: ApiDeps): Route[] {
  const { ctx } = deps;
  const { wallet } = operatorCalls(deps);
  const rows = OPERATOR_AUDITORS.operations;
  return [
    defineRoute(rows.listAuditors, async ({ req, param, reply }) => {
      reply(await listAuditors(ctx, await wallet(req), param('group')));
    }),
    defineRoute(rows.grantAuditor, async ({ req, param, body, reply }) => {
      const w = await wallet(req);
      const b = body<AuditorRequest>();
      reply(await grantAuditor(ctx, w, param('group'), b.wallet));
    }),
    defineRoute(rows.removeAuditor, async ({ req, param, body, reply }) => {
      const w = await wallet(req);
      const b = body<AuditorRequest>();
      reply(await removeAuditor(ctx, w, param('group'), b.wallet));
    }),
  ];
}
