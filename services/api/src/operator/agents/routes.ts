/**
 * A group's agents: invited (the code shown once), their limits changed, revoked, given a new key
 * (shown once), or withdrawn in an emergency; each answered once the agent views include it.
 */
import {
  OPERATOR_AGENTS,
  changeLimits,
  emergencyWithdraw,
  invite,
  revoke,
  rotateKey,
  type EmergencyWithdrawRequest,
  type InvitationRequest,
  type LimitsChangeRequest,
} from '@tokenops/shared';
import type { ApiDeps } from '../../deps';
import { defineRoute, type Route } from '../../http/operations';
import { limitsInput, operatorCalls } from '../common';

export function agentRoutes(deps: ApiDeps): Route[] {
  const rows = OPERATOR_AGENTS.operations;
  const { wallet, visible } = operatorCalls(deps);
  return [
    defineRoute(rows.inviteAgent, async ({ req, res, param, body, reply }) => {
      const w = await wallet(req);
      const b = body<InvitationRequest>();
      res.setHeader('cache-control', 'no-store');
      reply(
        await visible(res, () =>
          invite(deps.ctx, w, param('group'), {
            limits: limitsInput(b),
            ...(b.label !== undefined && { label: b.label }),
          }),
        ),
      );
    }),
    defineRoute(rows.changeLimits, async ({ req, res, param, body, reply }) => {
      const w = await wallet(req);
      const b = body<LimitsChangeRequest>();
      reply(await visible(res, () => changeLimits(deps.ctx, w, param('agent'), limitsInput(b))));
    }),
    defineRoute(rows.revokeAgent, async ({ req, res, param, body, reply }) => {
      const w = await wallet(req);
      body();
      reply(await visible(res, () => revoke(deps.ctx, w, param('agent'))));
    }),
    defineRoute(rows.emergencyWithdraw, async ({ req, res, param, body, reply }) => {
      const w = await wallet(req);
      const b = body<EmergencyWithdrawRequest>();
      reply(await visible(res, () => emergencyWithdraw(deps.ctx, w, param('agent'), b)));
    }),
    defineRoute(rows.rotateKey, async ({ req, res, param, body, reply }) => {
      const w = await wallet(req);
      body();
      res.setHeader('cache-control', 'no-store');
      reply(await visible(res, () => rotateKey(deps.ctx, w, param('agent'))));
    }),
  ];
}
