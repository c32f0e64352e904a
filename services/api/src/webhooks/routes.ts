import { Router } from 'express';
import type { WebhookRequest } from '@tokenops/shared';
import type { ApiDeps } from '../deps';
import { authenticateAgent } from '../http/auth';
import { bodyOf, send } from '../http/middleware';
import { registerWebhook } from './subscriptions';

/** POST /webhooks: an agent-scoped subscription; the signing secret is shown once. */
export function webhookRoutes(deps: ApiDeps): Router {
  const router = Router();
  router.post('/webhooks', async (req, res) => {
    const { caller } = await authenticateAgent(req, deps);
    const body = bodyOf<WebhookRequest>(req, 'WebhookRequest');
    res.setHeader('cache-control', 'no-store');
    send(
      res,
      200,
      await registerWebhook(deps.ctx, { agentId: caller.agentId }, body),
      'WebhookResponse',
      deps,
    );
  });
  return router;
}
