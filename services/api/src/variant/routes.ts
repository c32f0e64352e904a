/**
 * The variant contract under /v1 (spec "Variant" notes; docs/variant.md): a thin mapping onto the same
 * application as /api/v1 (one set of rules, one state, one key space). Each route translates the
 * variant's request into the primary application call and its result into the variant's answer, by
 * operation id (variant-openapi.ts); the error envelope is chosen by prefix in the error middleware.
 */
import {
  VARIANT_INTENTS,
  VARIANT_ONBOARDING,
  VARIANT_WEBHOOKS,
  amountFromText,
  register,
  registerWebhook,
  spend,
  variantIdempotencyKey,
  type SpendKind,
  type VariantRegisterRequest,
  type VariantSimulateRequest,
  type VariantWebhookRequest,
} from '@tokenops/shared';
import type { ApiDeps } from '../deps';
import { authenticateAgent, recordingRefusedKeys } from '../http/auth';
import { defineRoute, type Route } from '../http/operations';
import { variantReadRoutes } from './reads';
import { simulateVariant } from './simulate';
import { variantDepositKind, variantSwapKind, variantTransferKind, variantWithdrawKind } from './spends';

/** Where the variant is served (its errors' envelope: http/middleware.ts, isVariantPath). */
export const VARIANT_PREFIX = '/v1';

export function variantRoutes(deps: ApiDeps): Route[] {
  const intents = VARIANT_INTENTS.operations;
  const spends = [
    [intents.transfer, variantTransferKind],
    [intents.swap, variantSwapKind],
    [intents.deposit, variantDepositKind],
    [intents.withdraw, variantWithdrawKind],
  ] as const;
  return [
    defineRoute(VARIANT_ONBOARDING.operations.registerAgent, async ({ res, body, reply }) => {
      const { invitation_code } = body<VariantRegisterRequest>();
      // As POST /api/v1/register: a right code registers past the address's allowance of failures.
      const r = await register(deps.ctx, invitation_code);
      res.setHeader('cache-control', 'no-store');
      reply({
        agent_wallet_pda: r.agent_wallet_pda,
        api_key: r.api_key,
        group_config_pda: r.group_id,
        limits: {
          per_tx_limit: amountFromText(r.limits.per_tx_limit),
          daily_limit: amountFromText(r.limits.daily_limit),
          hourly_tx_cap: r.limits.hourly_tx_cap,
        },
      });
    }),
    ...spends.map(([row, k]) => {
      const kind = k as SpendKind<{ idempotency_key: string }>;
      return defineRoute(row, ({ req, body, reply }) =>
        recordingRefusedKeys(req, deps, kind.action, async () => {
          const { caller } = await authenticateAgent(req, deps);
          const b = body<object>();
          const idempotency_key = variantIdempotencyKey(req.header('idempotency-key'));
          const answer = await spend(deps.ctx, deps.waiter, caller, kind, { ...b, idempotency_key });
          reply(answer.body, answer.status);
        }),
      );
    }),
    defineRoute(intents.simulateIntent, async ({ req, body, reply }) => {
      const { caller } = await authenticateAgent(req, deps);
      const b = body<VariantSimulateRequest>();
      reply(await simulateVariant(deps.ctx, caller, b));
    }),
    defineRoute(VARIANT_WEBHOOKS.operations.registerWebhook, async ({ req, body, reply }) => {
      const { caller, view } = await authenticateAgent(req, deps);
      const b = body<VariantWebhookRequest>();
      const owner = { agentId: caller.agentId, groupId: view.group_id };
      const asked = { url: b.url, event_types: b.events, secret: b.secret };
      const { webhook_id } = await registerWebhook(deps.ctx, owner, asked);
      reply({ webhook_id, url: b.url, events: b.events });
    }),
    ...variantReadRoutes(deps),
  ];
}
