/**
 * The agent contract's webhooks (spec/agent-api.md: register one), and the service's own for agents:
 * list and delete its subscriptions. The subscription's view is the operator's too (operator/webhooks.ts).
 */
import { object, openObject } from '../build';
import { EVENT_KINDS } from '../../events/catalogue';
import { SIGNED_IN_ERRORS, contractTag } from '../openapi';
import { Identifier, Text, Timestamp, type Shape } from '../schemas';

export const WebhookRequest = openObject({
  url: {
    type: 'string',
    format: 'uri',
    pattern: '^https://',
    maxLength: 2048,
    description: 'The HTTPS URL that receives the events.',
  },
  event_types: {
    type: 'array',
    minItems: 1,
    maxItems: EVENT_KINDS.length,
    uniqueItems: true,
    items: { type: 'string', enum: EVENT_KINDS },
    description: 'Event kinds of the catalogue (docs/events.md), distinct, at least one.',
  },
});

export const WebhookResponse = openObject({
  webhook_id: { type: 'string' },
  signing_secret: { type: 'string' },
});

/** A subscription's id in an answer. */
export const WebhookId = { type: 'string', pattern: '^wh_' } as const;
/** A subscription's id in a path (`{webhook}`). */
export const WebhookIdParam = {
  type: 'string',
  maxLength: 47,
  pattern: '^wh_[1-9A-HJ-NP-Za-km-z]{32,44}$',
} as const;

export const WebhookSubscriptionView = object(
  {
    webhook_id: WebhookId,
    scope: { type: 'string', enum: ['agent', 'group'] },
    agent_wallet_pda: Identifier,
    group_config_pda: Identifier,
    url: Text,
    event_types: { type: 'array', items: { type: 'string', enum: EVENT_KINDS } },
    status: { type: 'string', enum: ['active', 'disabled', 'deleted'] },
    status_reason: Text,
    created_at: Timestamp,
    previous_secret_valid_until: Timestamp,
  },
  ['agent_wallet_pda', 'status_reason', 'previous_secret_valid_until'],
);

export const WebhookListResponse = object({ webhooks: { type: 'array', items: WebhookSubscriptionView } });

export const WebhookDeletedResponse = object({
  webhook_id: WebhookId,
  status: { type: 'string', const: 'deleted' },
});

export const AGENT_WEBHOOKS = contractTag({
  name: 'webhooks',
  description: 'Event subscriptions.',
  schemas: {
    WebhookRequest,
    WebhookResponse,
    WebhookSubscriptionView,
    WebhookListResponse,
    WebhookDeletedResponse,
  },
  parameters: { webhook: WebhookIdParam },
  operations: {
    registerWebhook: {
      method: 'post',
      path: '/webhooks',
      tag: 'webhooks',
      operationId: 'registerWebhook',
      summary: 'Subscribe an HTTPS URL to agent-scoped events; the signing secret is shown once.',
      description:
        'Subscribes `url` to the listed event types of this agent; deliveries are signed (Standard Webhooks) with a secret the service makes and answers once (`signing_secret`, `cache-control: no-store`). The URL must be https, carry no credentials and resolve to public addresses only; any other is `400 validation_error` on `/url`, and deliveries check the addresses again at each connection.',
      request: 'WebhookRequest',
      response: 'WebhookResponse',
    },
    listWebhooks: {
      method: 'get',
      path: '/webhooks',
      tag: 'webhooks',
      operationId: 'listWebhooks',
      summary: 'The agent’s own webhook subscriptions (never a secret).',
      description:
        'The agent’s own webhook subscriptions, active or disabled (with `status_reason`); deleted ones are not listed, and secrets are never shown. Answered once the delivery store includes every subscription the log holds now; `503 service_unavailable` with Retry-After when it is too far behind.',
      response: 'WebhookListResponse',
      errors: SIGNED_IN_ERRORS,
    },
    deleteWebhook: {
      method: 'delete',
      path: '/webhooks/{webhook}',
      tag: 'webhooks',
      operationId: 'deleteWebhook',
      summary: 'Delete one of the agent’s webhook subscriptions; nothing more is sent to it.',
      description:
        'Deletes one of the agent’s own subscriptions: no delivery is made for it any more. A subscription that is not the agent’s, or is deleted already, is `404 not_found`.',
      response: 'WebhookDeletedResponse',
      errors: [...SIGNED_IN_ERRORS, 'not_found'],
    },
  },
});

export type WebhookRequest = Shape<typeof WebhookRequest>;
export type WebhookResponse = Shape<typeof WebhookResponse>;
