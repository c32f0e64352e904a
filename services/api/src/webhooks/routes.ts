/**
 * An agent's webhook subscriptions over HTTP: POST/GET /webhooks, DELETE /webhooks/{id} (its own); the
 * operator's are operator/webhooks/routes.ts. What is recorded goes to the log; what is read comes
 * from the delivery store, once the relay has caught up with the log (relayCaughtUp, both use it).
 */
import {
  AGENT_WEBHOOKS,
  ServiceError,
  comparePositions,
  deleteWebhook,
  mustBeLive,
  registerWebhook,
  type Delivery,
  type WebhookSubscription,
  type WebhookRequest,
} from '@tokenops/shared';
import type { ApiDeps } from '../deps';
import { authenticateAgent } from '../http/auth';
import { defineRoute, type Route } from '../http/operations';

const iso = (ms: number) => new Date(ms).toISOString();

export const subscriptionView = (s: WebhookSubscription) => ({
  webhook_id: s.webhook_id,
  scope: s.agent_id ? 'agent' : 'group',
  ...(s.agent_id && { agent_wallet_pda: s.agent_id }),
  group_config_pda: s.group_id,
  url: s.url,
  event_types: s.event_types,
  status: s.status,
  ...(s.status_reason && { status_reason: s.status_reason }),
  created_at: iso(s.created_at),
  ...(s.secrets[1]?.until !== undefined && { previous_secret_valid_until: iso(s.secrets[1].until) }),
});

/** A delivery of a subscription's log, as the operator reads it. */
export const deliveryView = (d: Delivery) => ({
  event_id: d.event_id,
  event: d.event,
  status: d.status,
  attempts: d.attempts,
  created_at: iso(d.created_at),
  ...(d.next_attempt_at !== undefined && { next_attempt_at: iso(d.next_attempt_at) }),
  payload: JSON.parse(d.payload) as unknown,
  log: d.log.map((a) => ({
    attempt: a.attempt,
    at: iso(a.at),
    outcome: a.outcome,
    status_code: a.status_code ?? null,
    latency_ms: a.latency_ms,
    error: a.error ?? null,
  })),
});

/**
 * How long a read waits for the relay to fold what the log holds now. It takes milliseconds when the
 * relay keeps up; a relay further behind than this is answered 503 (retry), never with a store that
 * has not yet seen the caller's own writes (a subscription just made would be 404).
 */
export const RELAY_WAIT_MS = 5_000;

/** Resolves once the relay has folded the log up to its head as it is now; 503 past `waitMs`. */
export function relayCaughtUp(
  { ctx, deliveries }: Pick<ApiDeps, 'ctx' | 'deliveries'>,
  waitMs = RELAY_WAIT_MS,
) {
  return async () => {
    const head = await ctx.store.headPosition();
    const giveUpAt = Date.now() + waitMs;
    for (;;) {
      const at = await deliveries.relayCheckpoint();
      if (at && comparePositions(at, head) >= 0) return;
      if (Date.now() >= giveUpAt) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    throw new ServiceError(
      'service_unavailable',
      'Webhook subscriptions are catching up with the log; retry shortly.',
      undefined,
      1,
    );
  };
}

/** An agent's own subscriptions (under /api/v1). */
export function webhookRoutes(deps: ApiDeps): Route[] {
  const { ctx, deliveries } = deps;
  const rows = AGENT_WEBHOOKS.operations;
  const current = relayCaughtUp(deps);
  return [
    defineRoute(rows.registerWebhook, async ({ req, res, body, reply }) => {
      const { caller, view } = await authenticateAgent(req, deps);
      const b = body<WebhookRequest>();
      res.setHeader('cache-control', 'no-store');
      const owner = { agentId: caller.agentId, groupId: view.group_id };
      const asked = { url: b.url, event_types: b.event_types }; // the service makes the secret
      reply(await registerWebhook(ctx, owner, asked));
    }),
    defineRoute(rows.listWebhooks, async ({ req, reply }) => {
      const { caller } = await authenticateAgent(req, deps);
      await current();
      const subs = await deliveries.subscriptions({ agentId: caller.agentId });
      reply({ webhooks: subs.map(subscriptionView) });
    }),
    defineRoute(rows.deleteWebhook, async ({ req, param, reply }) => {
      const { caller } = await authenticateAgent(req, deps);
      const id = param('webhook');
      await current();
      const sub = await deliveries.subscription(id);
      if (sub?.agent_id !== caller.agentId)
        throw new ServiceError('not_found', 'No such webhook subscription.');
      await deleteWebhook(ctx, mustBeLive(sub));
      reply({ webhook_id: id, status: 'deleted' });
    }),
  ];
}
