/**
 * Webhook subscriptions: where to deliver which events, and the signing secret (sealed under the
 * key-encryption key: deliveries need it back to sign). Delivery itself is the delivery worker's.
 *
 * URL rules (spec, Events): https only, no credentials in it, and it must resolve to public
 * addresses only: the address guard in shared/ (ipaddr.js's special-purpose ranges, every IPv4 form
 * inside IPv6 unwrapped). The delivery worker checks the resolved address again with the same guard
 * at each delivery and connects only to the address it checked.
 */
import { randomBytes } from 'node:crypto';
import {
  ServiceError,
  checkPublicUrl,
  newId,
  systemResolver,
  validationError,
  type Context,
  type Resolver,
  type WebhookRequest,
} from '@tokenops/shared';

/** Checks a webhook URL as the spec asks (shared/src/net/address-guard.ts); the addresses it resolves to. */
export async function checkWebhookUrl(raw: string, resolve: Resolver = systemResolver): Promise<string[]> {
  const verdict = await checkPublicUrl(raw, resolve);
  if (!verdict.ok) throw validationError([{ path: '/url', issue: verdict.issue }]);
  return verdict.addresses;
}

export const webhooksStream = (owner: { agentId?: string; groupId?: string }): string =>
  owner.agentId ? `webhooks-agent-${owner.agentId}` : `webhooks-group-${owner.groupId}`;

export async function registerWebhook(
  ctx: Context,
  owner: { agentId?: string; groupId?: string },
  body: WebhookRequest,
) {
  if (!owner.agentId && !owner.groupId) throw new ServiceError('forbidden');
  await checkWebhookUrl(body.url);
  const webhookId = `wh_${newId()}`;
  const secret = `whsec_${randomBytes(32).toString('base64url')}`;
  await ctx.store.append(
    webhooksStream(owner),
    [
      {
        type: 'webhook.registered',
        data: {
          webhook_id: webhookId,
          ...(owner.agentId && { agent_id: owner.agentId }),
          ...(owner.groupId && { group_id: owner.groupId }),
          url: body.url,
          event_types: [...new Set(body.event_types)],
          sealed_secret: ctx.vault.seal(Buffer.from(secret), webhookId),
          at: ctx.now(),
        },
      },
    ],
    'any',
  );
  return { webhook_id: webhookId, signing_secret: secret };
}
