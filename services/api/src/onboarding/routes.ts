import { Router } from 'express';
import { collectAppends, register, type RegisterRequest } from '@tokenops/shared';
import { projectedPast } from '@tokenops/projections';
import type { ApiDeps } from '../deps';
import { bodyOf, send } from '../http/middleware';

/**
 * POST /register: an invitation code for an API key, shown once, answered once the read views hold
 * the key (at most VIEW_WAIT_MS). A wrong code is a failed authentication: counted per client
 * address, and an address over its allowance is refused (429) before the code is looked up.
 */
export function onboardingRoutes(deps: ApiDeps): Router {
  const router = Router();
  router.post('/register', async (req, res) => {
    const body = bodyOf<RegisterRequest>(req, 'RegisterRequest');
    await deps.clientLimit.check(req);
    const { result, last } = await collectAppends(() => register(deps.ctx, body.invitation_code));
    const { agent_wallet_pda, api_key } = result;
    // Answered once the views have the new key (boundedly), so it works at once on every API instance.
    if (last) await projectedPast(deps.views, last, deps.viewWaitMs);
    res.setHeader('cache-control', 'no-store');
    send(res, 200, { agent_wallet_pda, api_key }, 'RegisterResponse', deps);
  });
  return router;
}
