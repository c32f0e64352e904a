/**
 * The variant contract under /v1 (spec "Variant" notes; docs/variant.md): a thin mapping onto the same
 * application as /api/v1 (one set of rules, one state, one key space). Each route translates the
 * variant's request into the primary application call and its result into the variant's answer; the
 * error envelope is chosen by prefix in the error middleware.
 */
import { Router } from 'express';
import {
  amountFromText,
  register,
  registerWebhook,
  spend,
  variantIdempotencyKey,
  variantOpenApiDocument,
  type SpendKind,
  type VariantRegisterRequest,
  type VariantSimulateRequest,
  type VariantWebhookRequest,
} from '@tokenops/shared';
import type { ApiDeps } from '../deps';
import { authenticateAgent, recordingRefusedKeys } from '../http/auth';
import { bodyOf, send } from '../http/middleware';
import { variantReadRoutes } from './reads';
import { simulateVariant } from './simulate';
import { VARIANT_SPENDS } from './spends';

/** Where the variant is served (its errors' envelope: http/middleware.ts, isVariantPath). */
export const VARIANT_PREFIX = '/v1';

export function variantRoutes(deps: ApiDeps): Router {
  const router = Router();
  router.get('/openapi.json', (_req, res) => void res.json(variantOpenApiDocument()));

  router.post('/agents/register', async (req, res) => {
    const body = bodyOf<VariantRegisterRequest>(req, 'VariantRegisterRequest');
    // As POST /api/v1/register: a right code registers past the address's allowance of failures.
    const r = await register(deps.ctx, body.invitation_code);
    res.setHeader('cache-control', 'no-store');
    const answer = {
      agent_wallet_pda: r.agent_wallet_pda,
      api_key: r.api_key,
      group_config_pda: r.group_id,
      limits: {
        per_tx_limit: amountFromText(r.limits.per_tx_limit),
        daily_limit: amountFromText(r.limits.daily_limit),
        hourly_tx_cap: r.limits.hourly_tx_cap,
      },
    };
    send(res, 200, answer, 'VariantRegisterResponse', deps);
  });

  for (const kind of VARIANT_SPENDS as SpendKind<{ idempotency_key: string }>[]) {
    router.post(`/${kind.action}`, (req, res) =>
      recordingRefusedKeys(req, deps, kind.action, async () => {
        const { caller } = await authenticateAgent(req, deps);
        const body = bodyOf<object>(req, kind.requestSchema);
        const idempotency_key = variantIdempotencyKey(req.header('idempotency-key'));
        const answer = await spend(deps.ctx, deps.waiter, caller, kind, { ...body, idempotency_key });
        send(res, answer.status, answer.body, kind.responseSchema, deps);
      }),
    );
  }

  router.post('/intents/simulate', async (req, res) => {
    const { caller } = await authenticateAgent(req, deps);
    const body = bodyOf<VariantSimulateRequest>(req, 'VariantSimulateRequest');
    send(res, 200, await simulateVariant(deps.ctx, caller, body), 'VariantSimulateResponse', deps);
  });

  router.post('/webhooks', async (req, res) => {
    const { caller, view } = await authenticateAgent(req, deps);
    const body = bodyOf<VariantWebhookRequest>(req, 'VariantWebhookRequest');
    const owner = { agentId: caller.agentId, groupId: view.group_id };
    const asked = { url: body.url, event_types: body.events, secret: body.secret };
    const { webhook_id } = await registerWebhook(deps.ctx, owner, asked, deps.webhookUrls);
    send(res, 200, { webhook_id, url: body.url, events: body.events }, 'VariantWebhookResponse', deps);
  });

  router.use(variantReadRoutes(deps));
  return router;
}
