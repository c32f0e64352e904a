/**
 * A group's webhook subscriptions, for its members (the operator's JWT): the group's fleet webhooks
 * (the events of every agent of the group; a proposal the admins sign), every subscription of the group with its agents' own, a
 * subscription's delivery log, redelivery, secret rotation, deletion. The same routes are mounted
 * under /v1 with the variant's error envelope (routes.ts). What is read comes from the delivery store,
 * once the relay has caught up with the log (webhooks/routes.ts: relayCaughtUp).
 */
import type { Request } from 'express';
import {
  OPERATOR_WEBHOOKS,
  deleteWebhook,
  ownedGroup,
  mustBeLive,
  propose,
  requestRedelivery,
  rotateWebhookSecret,
  type DeliveriesQuery,
  type RedeliverRequest,
  type RotateSecretRequest,
  type WebhookRequest,
  type Capability,
  type WebhookSubscription,
} from '@tokenops/shared';
import type { ApiDeps } from '../../deps';
import { signedInWallet } from '../common';
import { defineRoute, type Call, type Route } from '../../http/operations';
import { deliveryView, relayCaughtUp, subscriptionView } from '../../webhooks/routes';

export function fleetWebhookRoutes(deps: ApiDeps): Route[] {
  const { ctx, deliveries } = deps;
  const rows = OPERATOR_WEBHOOKS.operations;
  const current = relayCaughtUp(deps);
  /** The signed-in wallet, when it is a member of the group whose role has `capability` (403/404 otherwise). */
  const operatorOf = async (req: Request, groupId: string, capability: Capability = 'admin') => {
    const wallet = await signedInWallet(deps, req);
    await ownedGroup(ctx, wallet, groupId, capability);
  };
  const ownedSubscription = async (
    { req, param }: Call,
    capability: Capability = 'admin',
  ): Promise<WebhookSubscription> => {
    const wallet = await signedInWallet(deps, req);
    await current();
    const sub = mustBeLive(await deliveries.subscription(param('webhook')));
    await ownedGroup(ctx, wallet, sub.group_id, capability);
    return sub;
  };

  return [
    defineRoute(rows.createFleetWebhook, async ({ req, param, body, reply }) => {
      const b = body<WebhookRequest>();
      const asked = { url: b.url, event_types: b.event_types }; // the service makes the secret
      reply(await propose(ctx, await signedInWallet(deps, req), param('group'), 'webhook.register', asked));
    }),
    defineRoute(rows.listWebhooks, async ({ req, param, reply }) => {
      const group = param('group');
      await operatorOf(req, group, 'read');
      await current();
      reply({ webhooks: (await deliveries.subscriptions({ groupId: group })).map(subscriptionView) });
    }),
    defineRoute(rows.deleteWebhook, async (call) => {
      const sub = await ownedSubscription(call);
      await deleteWebhook(ctx, sub);
      call.reply({ webhook_id: sub.webhook_id, status: 'deleted' });
    }),
    defineRoute(rows.listDeliveries, async (call) => {
      const sub = await ownedSubscription(call, 'read');
      const q = call.query<DeliveriesQuery & { limit: number }>();
      const page = await deliveries.deliveries(sub.webhook_id, {
        limit: q.limit,
        ...(q.before !== undefined && { before: Date.parse(q.before) }),
      });
      call.reply({ webhook: subscriptionView(sub), deliveries: page.map(deliveryView) });
    }),
    defineRoute(rows.redeliver, async (call) => {
      const sub = await ownedSubscription(call);
      const b = call.body<RedeliverRequest>();
      await requestRedelivery(ctx, sub, {
        ...(b.event_id !== undefined && { event_id: b.event_id }),
        ...(b.since !== undefined && { since: Date.parse(b.since) }),
      });
      call.reply({ webhook_id: sub.webhook_id, redelivery: 'requested' });
    }),
    defineRoute(rows.rotateWebhookSecret, async (call) => {
      const sub = await ownedSubscription(call);
      const b = call.body<RotateSecretRequest>();
      call.res.setHeader('cache-control', 'no-store');
      call.reply(await rotateWebhookSecret(ctx, sub, b.grace_seconds ?? 86_400));
    }),
  ];
}
