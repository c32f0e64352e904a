import { Router } from 'express';
import {
  IdempotencyKey,
  ServiceError,
  simulate,
  transfer,
  validationError,
  type SimulateRequest,
  type TransferRequest,
} from '@tokenops/shared';
import { projectedPast } from '@tokenops/projections';
import type { ApiDeps } from '../deps';
import { authenticateAgent } from '../http/auth';
import { bodyOf, send } from '../http/middleware';

function headerKey(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (value.length < IdempotencyKey.minLength || value.length > IdempotencyKey.maxLength) {
    throw validationError([{ path: '', issue: 'the idempotency-key header must be 1 to 255 characters' }]);
  }
  return value;
}

/** POST /transfer and POST /intents/simulate. */
export function intentRoutes(deps: ApiDeps): Router {
  const router = Router();
  router.post('/transfer', async (req, res) => {
    const { caller } = await authenticateAgent(req, deps);
    const body = bodyOf<TransferRequest>(req, 'TransferRequest');
    const answer = await transfer(
      deps.ctx,
      deps.waiter,
      caller,
      body,
      headerKey(req.header('idempotency-key')),
      async (position) => {
        await projectedPast(deps.views, position);
      },
    );
    send(res, answer.status, answer.body, 'TransferResponse', deps);
  });
  router.post('/intents/simulate', async (req, res) => {
    const { caller } = await authenticateAgent(req, deps);
    const body = bodyOf<SimulateRequest>(req, 'SimulateRequest');
    send(res, 200, await simulate(deps.ctx, caller, body), 'SimulateResponse', deps);
  });
  for (const path of ['/swap', '/deposit', '/withdraw']) {
    router.post(path, async (req) => {
      await authenticateAgent(req, deps);
      throw new ServiceError('not_found', `${path.slice(1)} is not available on this service yet.`);
    });
  }
  return router;
}
