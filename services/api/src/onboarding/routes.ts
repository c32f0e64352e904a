import { AGENT_ONBOARDING, collectAppends, register, type RegisterRequest } from '@tokenops/shared';
import { projectedPast } from '@tokenops/projections';
import type { ApiDeps } from '../deps';
import { defineRoute, type Route } from '../http/operations';

/**
 * POST /register: an invitation code for an API key, shown once, answered once the read views hold
 * the key (at most VIEW_WAIT_MS). A wrong code is a failed authentication, counted per client
 * address; past the address's allowance a wrong code is answered 429 (one that is not even well
 * formed before any lookup). A right code registers whatever failures others at that address made: it
 * carries 128 random bits, so no guessing run finds one, and agents of a fleet share one egress
 * address. Every registration counts against the address's limit of sign-in requests (routes.ts).
 */
export function onboardingRoutes(deps: ApiDeps): Route[] {
  const rows = AGENT_ONBOARDING.operations;
  return [
    defineRoute(rows.register, async ({ res, body, reply }) => {
      const { invitation_code } = body<RegisterRequest>();
      const { result, last } = await collectAppends(() => register(deps.ctx, invitation_code));
      const { agent_wallet_pda, api_key } = result;
      // Answered once the views have the new key (boundedly), so it works at once on every API instance.
      if (last) await projectedPast(deps.views, last, deps.viewWaitMs);
      res.setHeader('cache-control', 'no-store');
      reply({ agent_wallet_pda, api_key });
    }),
  ];
}
