/**
 * A group's agents: invited (a proposal: the code shown once, to the admin whose signature executed
 * it), their limits changed (a proposal when any rises), revoked, given a new key (shown once), or
 * withdrawn in an emergency; each change answered once the agent views include it.
 */
import {
  OPERATOR_AGENTS,
  governed,
  groupOfAgent,
  propose,
  revoke,
  killKey,
  type EmergencyWithdrawRequest,
  type InvitationRequest,
  type LimitsChangeRequest,
} from '@tokenops/shared';
import type { ApiDeps } from '../../deps';
import { defineRoute, type Route } from '../../http/operations';
import { limitsInput, operatorCalls, replyGoverned } from '../common';

export function agentRoutes(deps: ApiDeps): Route[] {
  const rows = OPERATOR_AGENTS.operations;
  const { wallet, visible } = operatorCalls(deps);
  return [
    defineRoute(rows.inviteAgent, async ({ req, param, body, reply }) => {
      const w = await wallet(req);
      const b = body<InvitationRequest>() ?? {};
      const limits = limitsInput(b);
      reply(
        await propose(deps.ctx, w, param('group'), 'agent.invite', {
          ...(Object.keys(limits).length > 0 && { limits }),
          ...(b.label !== undefined && { label: b.label }),
        }),
      );
    }),
    defineRoute(rows.changeLimits, async ({ req, res, param, body, reply }) => {
      const w = await wallet(req);
      const b = body<LimitsChangeRequest>();
      const agent = param('agent');
      const group = await groupOfAgent(deps.ctx, agent);
      replyGoverned(
        reply,
        await visible(res, () =>
          governed(deps.ctx, w, group, 'agent.limits', { agent, limits: limitsInput(b) }),
        ),
      );
    }),
    defineRoute(rows.revokeAgent, async ({ req, res, param, body, reply }) => {
      const w = await wallet(req);
      body();
      reply(await visible(res, () => revoke(deps.ctx, w, param('agent'))));
    }),
    defineRoute(rows.emergencyWithdraw, async ({ req, res, param, body, reply }) => {
      const w = await wallet(req);
      const b = body<EmergencyWithdrawRequest>() ?? {};
      const agent = param('agent');
      const group = await groupOfAgent(deps.ctx, agent);
      replyGoverned(
        reply,
        await visible(res, () =>
          governed(deps.ctx, w, group, 'agent.emergency_withdraw', {
            agent,
            ...(b.destination !== undefined && { destination: b.destination }),
          }),
        ),
      );
    }),
    // The old key dies at once; the new one is a proposal (the key in its executing signature's answer).
    defineRoute(rows.rotateKey, async ({ req, res, param, body, reply }) => {
      const w = await wallet(req);
      body();
      const agent = param('agent');
      await visible(res, () => killKey(deps.ctx, w, agent));
      reply(await propose(deps.ctx, w, await groupOfAgent(deps.ctx, agent), 'agent.issue_key', { agent }));
    }),
  ];
}
