import { Router } from 'express';
import {
  IdempotencyKey,
  SPEND_KINDS,
  idempotencyKeyOf,
  simulate,
  spend,
  transferDryRun,
  validationError,
  type SimulateRequest,
  type SpendKind,
} from '@tokenops/shared';
import type { ApiDeps } from '../deps';
import { authenticateAgent, recordingRefusedKeys } from '../http/auth';
import { bodyOf, send } from '../http/middleware';

function headerKey(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (value.length < IdempotencyKey.minLength || value.length > IdempotencyKey.maxLength) {
    throw validationError([{ path: '', issue: 'the idempotency-key header must be 1 to 255 characters' }]);
  }
  return value;
}

/** POST /transfer, /swap, /deposit, /withdraw (each a spend kind on the one pipeline) and /intents/simulate. */
export function intentRoutes(deps: ApiDeps): Router {
  const router = Router();
  for (const kind of Object.values(SPEND_KINDS) as SpendKind<{ idempotency_key: string }>[]) {
    router.post(`/${kind.action}`, (req, res) =>
      recordingRefusedKeys(req, deps, kind.action, async () => {
        const { caller } = await authenticateAgent(req, deps);
        const body = bodyOf<{ idempotency_key: string }>(req, kind.requestSchema);
        idempotencyKeyOf(headerKey(req.header('idempotency-key')), body.idempotency_key);
        const answer = await spend(deps.ctx, deps.waiter, caller, kind, body);
        send(res, answer.status, answer.body, kind.responseSchema, deps);
      }),
    );
  }
  router.post('/intents/simulate', async (req, res) => {
    const { caller } = await authenticateAgent(req, deps);
    const body = bodyOf<SimulateRequest>(req, 'SimulateRequest');
    const answer = await simulate(deps.ctx, caller, (group) => transferDryRun(deps.ctx, body, group));
    send(res, 200, answer, 'SimulateResponse', deps);
  });
  return router;
}
