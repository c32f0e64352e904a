/**
 * Webhook subscriptions over HTTP. Agents: POST/GET /webhooks, DELETE /webhooks/{id} (their own).
 * Operators (wallet JWT, the group's owner): a group's fleet webhooks, every subscription of the group,
 * a subscription's delivery log, redelivery, secret rotation, deletion. What is recorded goes to the
 * log; what is read comes from the delivery store, once the relay has caught up with the log.
 */
import { Router, type Request } from 'express';
import {
  ServiceError,
  deleteWebhook,
  describeGroup,
  mustBeLive,
  registerWebhook,
  requestRedelivery,
  rotateWebhookSecret,
  validate,
  type Delivery,
  type DeliveriesQuery,
  type RedeliverRequest,
  type RotateSecretRequest,
  type WebhookSubscription,
  type WebhookRequest,
} from '@tokenops/shared';
import type { ApiDeps } from '../deps';
import { authenticateAgent, bearer } from '../http/auth';
import { bodyOf, send } from '../http/middleware';

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

const deliveryView = (d: Delivery) => ({
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

/** What both routers share: reads after the relay caught up, and the webhook path parameter. */
function helpers(deps: ApiDeps) {
  const { ctx, deliveries } = deps;
  /** Reads answer once the relay has folded what the log holds now (a second at most). */
  const current = async () => {
    const head = await ctx.store.headPosition();
    const giveUpAt = Date.now() + 1_000;
    while (Date.now() < giveUpAt) {
      const at = await deliveries.relayCheckpoint();
      if (at && (at.commit > head.commit || (at.commit === head.commit && at.prepare >= head.prepare)))
        return;
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  const webhookParam = (req: Request): string => {
    const webhook = req.params.webhook as string;
    validate('PathParams', { webhook });
    return webhook;
  };
  const ok = (res: Parameters<typeof send>[0], body: unknown, status = 200) =>
    send(res, status, body, undefined, deps);
  return { ctx, deliveries, current, webhookParam, ok };
}

/** An agent's own subscriptions (under /api/v1). */
export function webhookRoutes(deps: ApiDeps): Router {
  const router = Router();
  const { ctx, deliveries, current, webhookParam, ok } = helpers(deps);
  router.post('/webhooks', async (req, res) => {
    const { caller, view } = await authenticateAgent(req, deps);
    const body = bodyOf<WebhookRequest>(req, 'WebhookRequest');
    res.setHeader('cache-control', 'no-store');
    const owner = { agentId: caller.agentId, groupId: view.group_id };
    const asked = { url: body.url, event_types: body.event_types }; // the service makes the secret
    send(res, 200, await registerWebhook(ctx, owner, asked, deps.webhookUrls), 'WebhookResponse', deps);
  });
  router.get('/webhooks', async (req, res) => {
    const { caller } = await authenticateAgent(req, deps);
    await current();
    const subs = await deliveries.subscriptions({ agentId: caller.agentId });
    ok(res, { webhooks: subs.map(subscriptionView) });
  });
  router.delete('/webhooks/:webhook', async (req, res) => {
    const { caller } = await authenticateAgent(req, deps);
    const id = webhookParam(req);
    await current();
    const sub = await deliveries.subscription(id);
    if (sub?.agent_id !== caller.agentId)
      throw new ServiceError('not_found', 'No such webhook subscription.');
    await deleteWebhook(ctx, mustBeLive(sub));
    ok(res, { webhook_id: id, status: 'deleted' });
  });

  return router;
}

/** The operator's: fleet webhooks and every subscription of the operator's groups (also under /v1). */
export function fleetWebhookRoutes(deps: ApiDeps): Router {
  const router = Router();
  const { ctx, deliveries, current, webhookParam, ok } = helpers(deps);
  const operatorOf = async (req: Request, groupId: string) => {
    const wallet = await deps.operators.wallet(bearer(req));
    await describeGroup(ctx, wallet, groupId); // the group's owner, or 403/404
  };
  const ownedSubscription = async (req: Request): Promise<WebhookSubscription> => {
    const wallet = await deps.operators.wallet(bearer(req));
    const id = webhookParam(req);
    await current();
    const sub = mustBeLive(await deliveries.subscription(id));
    await describeGroup(ctx, wallet, sub.group_id);
    return sub;
  };
  const groupParam = (req: Request): string => {
    const group = req.params.group as string;
    validate('PathParams', { group });
    return group;
  };

  router.post('/orchestrator/groups/:group/webhooks', async (req, res) => {
    const group = groupParam(req);
    await operatorOf(req, group);
    const body = bodyOf<WebhookRequest>(req, 'WebhookRequest');
    res.setHeader('cache-control', 'no-store');
    const asked = { url: body.url, event_types: body.event_types }; // the service makes the secret
    ok(res, await registerWebhook(ctx, { groupId: group }, asked, deps.webhookUrls), 201);
  });
  router.get('/orchestrator/groups/:group/webhooks', async (req, res) => {
    const group = groupParam(req);
    await operatorOf(req, group);
    await current();
    ok(res, { webhooks: (await deliveries.subscriptions({ groupId: group })).map(subscriptionView) });
  });
  router.delete('/orchestrator/webhooks/:webhook', async (req, res) => {
    const sub = await ownedSubscription(req);
    await deleteWebhook(ctx, sub);
    ok(res, { webhook_id: sub.webhook_id, status: 'deleted' });
  });
  router.get('/orchestrator/webhooks/:webhook/deliveries', async (req, res) => {
    const sub = await ownedSubscription(req);
    const q = validate<DeliveriesQuery & { limit: number }>('DeliveriesQuery', { ...req.query });
    const page = await deliveries.deliveries(sub.webhook_id, {
      limit: q.limit,
      ...(q.before !== undefined && { before: Date.parse(q.before) }),
    });
    ok(res, { webhook: subscriptionView(sub), deliveries: page.map(deliveryView) });
  });
  router.post('/orchestrator/webhooks/:webhook/redeliver', async (req, res) => {
    const sub = await ownedSubscription(req);
    const body = bodyOf<RedeliverRequest>(req, 'RedeliverRequest');
    await requestRedelivery(ctx, sub, {
      ...(body.event_id !== undefined && { event_id: body.event_id }),
      ...(body.since !== undefined && { since: Date.parse(body.since) }),
    });
    ok(res, { webhook_id: sub.webhook_id, redelivery: 'requested' }, 202);
  });
  router.post('/orchestrator/webhooks/:webhook/rotate-secret', async (req, res) => {
    const sub = await ownedSubscription(req);
    const body = bodyOf<RotateSecretRequest>(req, 'RotateSecretRequest');
    res.setHeader('cache-control', 'no-store');
    ok(res, await rotateWebhookSecret(ctx, sub, body.grace_seconds ?? 86_400));
  });
  return router;
}
