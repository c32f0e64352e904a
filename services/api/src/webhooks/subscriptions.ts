/**
 * Webhook subscriptions: where to deliver which events, and the signing secret (sealed under the
 * key-encryption key: deliveries need it back to sign). Delivery itself is the delivery worker's.
 *
 * URL rules (spec, Events): https only, no credentials in it, and it must resolve to public
 * addresses only: loopback, private (RFC 1918), link-local, CGNAT, multicast and reserved ranges,
 * in IPv4 and IPv6, are refused. The delivery worker checks the resolved address again at each
 * delivery and connects only to the address it checked.
 */
import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { randomBytes } from 'node:crypto';
import { ServiceError, newId, validationError, type Context, type WebhookRequest } from '@tokenops/shared';

const blocked = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  blocked.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
  ['64:ff9b::', 96],
  ['2001:db8::', 32],
] as const) {
  blocked.addSubnet(net, prefix, 'ipv6');
}

export const isPublicAddress = (address: string): boolean => {
  // An IPv4-mapped IPv6 address (::ffff:a.b.c.d) is the IPv4 address it carries.
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  if (mapped) return isPublicAddress(mapped);
  const family = isIP(address);
  return family !== 0 && !blocked.check(address, family === 6 ? 'ipv6' : 'ipv4');
};

/** Checks a webhook URL as the spec asks; the addresses it resolves to. */
export async function checkWebhookUrl(raw: string, resolve = lookup): Promise<string[]> {
  const url = new URL(raw);
  const refuse = (issue: string) => validationError([{ path: '/url', issue }]);
  if (url.protocol !== 'https:') throw refuse('must use https');
  if (url.username || url.password) throw refuse('must not carry credentials');
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let addresses: string[];
  if (isIP(host)) addresses = [host];
  else {
    try {
      addresses = (await resolve(host, { all: true, verbatim: true })).map((a) => a.address);
    } catch {
      throw refuse('does not resolve');
    }
  }
  if (addresses.length === 0 || !addresses.every(isPublicAddress))
    throw refuse('must resolve to public addresses only (no loopback, private or reserved ranges)');
  return addresses;
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
