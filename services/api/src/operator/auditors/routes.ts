/**
 * Auditors' access: an admin of a group grants (a proposal) and removes (at once) auditors (wallets
 * that sign in like operators, with the same challenge and the same token), and members list them. An
 * auditor is no member, so every operator route (which checks the role) answers it 403; it reads the
 * audit routes of its groups (audit/routes.ts).
 */
import {
  OPERATOR_AUDITORS,
  governed,
  listAuditors,
  removeAuditor,
  type AuditorRequest,
} from '@tokenops/shared';
import type { ApiDeps } from '../../deps';
import { defineRoute, type Route } from '../../http/operations';
import { operatorCalls, replyGoverned } from '../common';

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
      replyGoverned(reply, await governed(ctx, w, param('group'), 'auditor.grant', { wallet: b.wallet }));
    }),
    defineRoute(rows.removeAuditor, async ({ req, param, body, reply }) => {
      const w = await wallet(req);
      const b = body<AuditorRequest>();
      reply(await removeAuditor(ctx, w, param('group'), b.wallet));
    }),
  ];
}
