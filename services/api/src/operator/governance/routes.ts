/**
 * Governance: the kill switch. An agent or a whole group frozen by any one admin, at once
 * (shared/src/application/freeze.ts); answered once the agent views include it.
 */
import { OPERATOR_GOVERNANCE, freezeAgent, freezeGroup, type FreezeRequest } from '@tokenops/shared';
import type { ApiDeps } from '../../deps';
import { defineRoute, type Route } from '../../http/operations';
import { operatorCalls } from '../common';

export function governanceRoutes(deps: ApiDeps): Route[] {
  const rows = OPERATOR_GOVERNANCE.operations;
  const { wallet, visible } = operatorCalls(deps);
  return [
    defineRoute(rows.freezeAgent, async ({ req, res, param, body, reply }) => {
      const w = await wallet(req);
      const b = body<FreezeRequest>() ?? {};
      reply(await visible(res, () => freezeAgent(deps.ctx, w, param('agent'), b)));
    }),
    defineRoute(rows.freezeGroup, async ({ req, res, param, body, reply }) => {
      const w = await wallet(req);
      const b = body<FreezeRequest>() ?? {};
      reply(await visible(res, () => freezeGroup(deps.ctx, w, param('group'), b)));
    }),
  ];
}
