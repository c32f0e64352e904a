import { Router } from 'express';
import { register, type RegisterRequest } from '@tokenops/shared';
import type { ApiDeps } from '../deps';
import { bodyOf, send } from '../http/middleware';

/**
 * POST /register: an invitation code for an API key, shown once. A wrong code is a failed
 * authentication: counted per client address, and an address over its allowance is refused (429)
 * before the code is looked up.
 */
export function onboardingRoutes(deps: ApiDeps): Router {
  const router = Router();
  router.post('/register', async (req, res) => {
    const body = bodyOf<RegisterRequest>(req, 'RegisterRequest');
    await deps.clientLimit.check(req);
    const { agent_wallet_pda, api_key } = await register(deps.ctx, body.invitation_code);
    res.setHeader('cache-control', 'no-store');
    send(res, 200, { agent_wallet_pda, api_key }, 'RegisterResponse', deps);
  });
  return router;
}
