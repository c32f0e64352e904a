/**
 * Webhook subscriptions: what an agent or an operator asks for, recorded in the log (one stream per
 * owner, `streams.webhooks`), and folded by the relay into the delivery store. The signing secret is
 * sealed under the key-encryption key (deliveries need it back to sign) and shown once.
 *
 * URL rules (spec, Events): https only, no credentials, and it must resolve to public addresses only
 * (net/address-guard.ts), unless its host is one the operator allowed (WEBHOOK_ALLOWED_PRIVATE_HOSTS,
 * local development and tests). The delivery worker checks the resolved addresses again at each
 * connection, and connects only to an address it checked.
 */
import bs58 from 'bs58';
import { ServiceError, validationError } from '../../errors';
import { streams } from '../../domain/events';
import type { WebhookSubscription } from '../../deliveries/port';
import { checkPublicUrl, isPublicAddress } from '../../net/address-guard';
import { allowedPrivate } from '../../net/allowed-hosts';
import { newSigningSecret } from '../../webhooks/signing';
import type { Context, UrlPolicy } from '../context';
import { newId } from '../credentials';
import { byProposal, type GovernedAction } from '../governed';
import { staged } from '../repository';

export type WebhookEvent =
  | {
      type: 'webhook.registered';
      data: {
        webhook_id: string;
        agent_id?: string;
        group_id?: string;
        url: string;
        event_types: string[];
        sealed_secret: string;
        /** The proposal that registered it (a fleet webhook), when one did. */
        proposal_id?: string;
        at: number;
      };
    }
  | { type: 'webhook.deleted'; data: { webhook_id: string; at: number } }
  | {
      type: 'webhook.secret_rotated';
      data: { webhook_id: string; sealed_secret: string; previous_valid_until: number; at: number };
    }
  | { type: 'webhook.disabled'; data: { webhook_id: string; reason: string; at: number } }
  | {
      type: 'webhook.redelivery_requested';
      data: { webhook_id: string; event_ids?: string[]; since?: number; at: number };
    };

// Keyed by the union, so the compiler keeps it whole.
const LISTED: Record<WebhookEvent['type'], true> = {
  'webhook.registered': true,
  'webhook.deleted': true,
  'webhook.secret_rotated': true,
  'webhook.disabled': true,
  'webhook.redelivery_requested': true,
};
/** Every type of the subscriptions' events. */
export const WEBHOOK_EVENT_TYPES = Object.keys(LISTED) as readonly WebhookEvent['type'][];

const WEBHOOK_TYPES = new Set<string>(WEBHOOK_EVENT_TYPES);

export const decodeWebhookEvent = (recorded: { type: string; data: unknown }): WebhookEvent | undefined =>
  WEBHOOK_TYPES.has(recorded.type) ? (recorded as WebhookEvent) : undefined;

/** Folds one event into the subscription it concerns (registered: a new one). Pure. */
export function evolveSubscription(
  sub: WebhookSubscription | undefined,
  event: WebhookEvent,
  groupOfAgent?: string,
): WebhookSubscription | undefined {
  const d = event.data;
  if (event.type === 'webhook.registered') {
    const e = event.data;
    const group = e.group_id ?? groupOfAgent;
    if (!group) return undefined;
    return {
      webhook_id: e.webhook_id,
      ...(e.agent_id && { agent_id: e.agent_id }),
      group_id: group,
      url: e.url,
      event_types: e.event_types,
      secrets: [{ sealed: e.sealed_secret }],
      status: 'active',
      created_at: e.at,
    };
  }
  if (!sub || sub.webhook_id !== d.webhook_id) return sub;
  switch (event.type) {
    case 'webhook.deleted':
      return { ...sub, status: 'deleted' };
    case 'webhook.disabled':
      return sub.status === 'active' ? { ...sub, status: 'disabled', status_reason: event.data.reason } : sub;
    case 'webhook.secret_rotated':
      return {
        ...sub,
        secrets: [
          { sealed: event.data.sealed_secret },
          { sealed: sub.secrets[0]!.sealed, until: event.data.previous_valid_until },
        ],
      };
    default:
      return sub;
  }
}

/**
 * Checks a webhook URL as the spec asks; a refusal is validation_error on /url. A host that
 * `allowedPrivateHosts` opens on the URL's port, or resolving only to public addresses or addresses
 * opened on that port, passes.
 */
export async function checkWebhookUrl(raw: string, policy: UrlPolicy): Promise<void> {
  const resolve = policy.resolve;
  const verdict = await checkPublicUrl(raw, resolve);
  if (verdict.ok) return;
  if ((policy.allowedPrivateHosts ?? []).length > 0) {
    const allowed = allowedPrivate(policy.allowedPrivateHosts!);
    // Every other rule (https, no credentials, a host) must hold; only the addresses may be private.
    const url = URL.canParse(raw) ? new URL(raw) : undefined;
    if (url?.protocol === 'https:' && !url.username && !url.password && url.port !== '0' && url.hostname) {
      const host = url.hostname.replace(/^\[|\]$/g, '');
      const port = url.port === '' ? 443 : Number(url.port);
      if (allowed.allows(host, port)) return;
      const literal = url.hostname.startsWith('[') || /^[\d.]+$/.test(url.hostname);
      const addresses = literal ? [host] : await resolve(host).catch((): string[] => []);
      if (addresses.length > 0 && addresses.every((a) => isPublicAddress(a) || allowed.allows(a, port)))
        return;
    }
  }
  throw validationError([{ path: '/url', issue: verdict.issue }]);
}

/** The URL rules of this process (a process that registers no webhooks has none: it refuses). */
function urlPolicy(ctx: Context): UrlPolicy {
  if (!ctx.webhookUrls) throw new ServiceError('service_unavailable', 'This process registers no webhooks.');
  return ctx.webhookUrls;
}

/** The `webhook.registered` event of a new subscription, its secret sealed under the vault's key. */
function registration(
  ctx: Context,
  owner: { agentId?: string; groupId: string },
  webhookId: string,
  body: { url: string; event_types: readonly string[] },
  secret: string,
): WebhookEvent {
  return {
    type: 'webhook.registered',
    data: {
      webhook_id: webhookId,
      ...(owner.agentId && { agent_id: owner.agentId }),
      group_id: owner.groupId,
      url: body.url,
      event_types: [...new Set(body.event_types)],
      sealed_secret: ctx.vault.seal(Buffer.from(secret), webhookId),
      at: ctx.now(),
    },
  };
}

/**
 * Records an agent's own subscription. Its signing secret is a new `whsec_` one, or the caller's own
 * when given (the variant contract lets the caller choose it; its schema sets the minimum length).
 * A fleet webhook (the whole group's events) is a governed change: `WEBHOOK_ACTIONS`.
 */
export async function registerWebhook(
  ctx: Context,
  owner: { agentId: string; groupId: string },
  body: { url: string; event_types: string[]; secret?: string },
): Promise<{ webhook_id: string; signing_secret: string }> {
  await checkWebhookUrl(body.url, urlPolicy(ctx));
  const webhookId = `wh_${newId()}`;
  const secret = body.secret ?? newSigningSecret();
  await ctx.store.append(streams.webhooks(owner), [registration(ctx, owner, webhookId, body, secret)], 'any');
  return { webhook_id: webhookId, signing_secret: secret };
}

/** A fleet webhook's id and secret, made from the proposal that registers it (never stored). */
const fleetWebhookOf = (ctx: Context, proposalId: string | undefined) => {
  if (proposalId === undefined) return { webhookId: `wh_${newId()}`, secret: newSigningSecret() };
  const id = bs58.encode(ctx.vault.derive(`webhook:${proposalId}`, 32));
  return {
    webhookId: `wh_${id}`,
    secret: newSigningSecret(ctx.vault.derive(`webhook-secret:${proposalId}`, 32)),
  };
};

export const WEBHOOK_ACTIONS = {
  /**
   * A fleet webhook (`{url, event_types}`): the events of every agent of the group, sent out of the
   * service, so it hands out data: a proposal. The URL is checked when it is proposed and again when
   * it executes (what a name resolves to may have changed). Its signing secret is shown once, to the
   * admin whose signature executed it (or the proposer, after a delay), and sealed in the log.
   */
  'webhook.register': {
    async change(ctx, groupId, params, proposalId) {
      const body = { url: String(params.url), event_types: params.event_types as string[] };
      await checkWebhookUrl(body.url, urlPolicy(ctx));
      const { webhookId, secret } = fleetWebhookOf(ctx, proposalId);
      const events = byProposal([registration(ctx, { groupId }, webhookId, body, secret)], proposalId);
      return {
        staged: staged(streams.webhooks({ groupId }), events),
        result: { webhook_id: webhookId, url: body.url, event_types: [...new Set(body.event_types)] },
        secret: { signing_secret: secret },
        widens: true,
      };
    },
    secretOf: (ctx, _groupId, proposalId) => ({ signing_secret: fleetWebhookOf(ctx, proposalId).secret }),
  },
} satisfies Record<string, GovernedAction>;

const ownerOf = (sub: WebhookSubscription) =>
  sub.agent_id ? { agentId: sub.agent_id } : { groupId: sub.group_id };

/** Appends one lifecycle event to the subscription's stream. */
async function record(ctx: Context, sub: WebhookSubscription, event: WebhookEvent): Promise<void> {
  await ctx.store.append(streams.webhooks(ownerOf(sub)), [event], 'any');
}

export function mustBeLive(sub: WebhookSubscription | undefined): WebhookSubscription {
  if (!sub || sub.status === 'deleted') throw new ServiceError('not_found', 'No such webhook subscription.');
  return sub;
}

export async function deleteWebhook(ctx: Context, sub: WebhookSubscription): Promise<void> {
  await record(ctx, sub, { type: 'webhook.deleted', data: { webhook_id: sub.webhook_id, at: ctx.now() } });
}

/**
 * A new signing secret, shown once. For `graceSeconds` the previous one signs too (both signatures in
 * each header), so receivers can switch without losing a delivery.
 */
export async function rotateWebhookSecret(
  ctx: Context,
  sub: WebhookSubscription,
  graceSeconds: number,
): Promise<{ webhook_id: string; signing_secret: string; previous_secret_valid_until: string }> {
  const secret = newSigningSecret();
  const until = ctx.now() + graceSeconds * 1000;
  await record(ctx, sub, {
    type: 'webhook.secret_rotated',
    data: {
      webhook_id: sub.webhook_id,
      sealed_secret: ctx.vault.seal(Buffer.from(secret), sub.webhook_id),
      previous_valid_until: until,
      at: ctx.now(),
    },
  });
  return {
    webhook_id: sub.webhook_id,
    signing_secret: secret,
    previous_secret_valid_until: new Date(until).toISOString(),
  };
}

/** Sends one event (by id) or every event since a time to the subscription again. */
export async function requestRedelivery(
  ctx: Context,
  sub: WebhookSubscription,
  what: { event_id?: string; since?: number },
): Promise<void> {
  await record(ctx, sub, {
    type: 'webhook.redelivery_requested',
    data: {
      webhook_id: sub.webhook_id,
      ...(what.event_id !== undefined && { event_ids: [what.event_id] }),
      ...(what.since !== undefined && { since: what.since }),
      at: ctx.now(),
    },
  });
}
