/**
 * A group's webhook subscriptions: its fleet webhooks (the events of every agent of the group), every
 * subscription of the group with its agents' own, a subscription's delivery log, redelivery, secret
 * rotation. The same rows are served under /v1 with the variant's error envelope.
 */
import { object } from '../build';
import { EVENT_KINDS } from '../../events/catalogue';
import { contractTag } from '../openapi';
import { Count, Text, Timestamp, type Shape } from '../schemas';
import {
  WebhookDeletedResponse,
  WebhookId,
  WebhookIdParam,
  WebhookListResponse,
  WebhookRequest,
  WebhookResponse,
  WebhookSubscriptionView,
} from '../agent/webhooks';
import { NullableText, OWNER } from './common';
import { Proposal } from './governance';

const EventId = { type: 'string', maxLength: 36, pattern: '^evt_[0-9a-f]{32}$' } as const;

/** Send one event again (by its event_id), or every event since a time. */
export const RedeliverRequest = object(
  { event_id: EventId, since: { type: 'string', format: 'date-time', maxLength: 64 } },
  ['event_id', 'since'],
  { minProperties: 1, maxProperties: 1, description: 'Exactly one of event_id and since.' },
);

/** A new signing secret; the previous one keeps signing for `grace_seconds` (default a day, at most a week). */
export const RotateSecretRequest = object(
  { grace_seconds: { type: 'integer', format: 'int32', minimum: 0, maximum: 604_800 } },
  ['grace_seconds'],
);

/** The delivery log of a subscription, newest first, a page at a time. */
export const DeliveriesQuery = object(
  {
    limit: { type: 'integer', format: 'int32', minimum: 1, maximum: 100, default: 20 },
    before: { type: 'string', format: 'date-time', maxLength: 64 },
  },
  ['limit', 'before'],
);

export const AttemptLogSchema = {
  type: 'array',
  items: object({
    attempt: { type: 'integer', minimum: 1 },
    at: Timestamp,
    outcome: { type: 'string', enum: ['delivered', 'failed', 'gone', 'cancelled'] },
    status_code: { type: ['integer', 'null'] },
    latency_ms: { type: 'number', minimum: 0 },
    error: NullableText,
  }),
} as const;

export const DeliveryStatusSchema = {
  type: 'string',
  enum: ['pending', 'delivered', 'failed', 'dead', 'cancelled'],
} as const;

export const DeliveriesResponse = object({
  webhook: WebhookSubscriptionView,
  deliveries: {
    type: 'array',
    items: object(
      {
        event_id: Text,
        event: { type: 'string', enum: EVENT_KINDS },
        status: DeliveryStatusSchema,
        attempts: Count,
        created_at: Timestamp,
        next_attempt_at: Timestamp,
        payload: { description: 'The event as sent (docs/events.md).' },
        log: AttemptLogSchema,
      },
      ['next_attempt_at'],
    ),
  },
});

export const RedeliveryResponse = object({
  webhook_id: WebhookId,
  redelivery: { type: 'string', const: 'requested' },
});

export const RotateSecretResponse = object({
  webhook_id: WebhookId,
  signing_secret: { type: 'string', description: 'The new secret, shown once.' },
  previous_secret_valid_until: Timestamp,
});

export const OPERATOR_WEBHOOKS = contractTag({
  name: 'webhooks',
  description:
    'A group’s subscriptions and their delivery logs (served under /v1 too, with the variant’s error envelope).',
  schemas: {
    WebhookRequest,
    WebhookResponse,
    WebhookSubscriptionView,
    WebhookListResponse,
    WebhookDeletedResponse,
    DeliveriesQuery,
    DeliveriesResponse,
    RedeliverRequest,
    RedeliveryResponse,
    RotateSecretRequest,
    RotateSecretResponse,
    Proposal,
  },
  parameters: { webhook: WebhookIdParam },
  operations: {
    createFleetWebhook: {
      method: 'post',
      path: '/orchestrator/groups/{group}/webhooks',
      tag: 'webhooks',
      operationId: 'createFleetWebhook',
      summary:
        'Propose to subscribe an HTTPS URL to the events of every agent of the group (a proposal, `202`); once executed, the secret is shown once.',
      description:
        'Subscribes `url` to the listed event types of every agent of the group, present and future. A fleet webhook sends the group’s events out of the service, so it is a proposal: nothing changes until a quorum of the group’s admins has signed its `message` (POST /orchestrator/proposals/{proposal}/sign); with the default governance (quorum 1, no delay) the proposer’s own signature executes it. Deliveries are signed (Standard Webhooks) with a secret the service makes: it is in the `result` of the answer to the signature that executed it (`WebhookResponse`), once, and in no log, no other answer, never to a viewer. The URL must be https, carry no credentials and resolve to public addresses only, checked when proposed and again when it executes; any other is `400 validation_error` on `/url` (at execution: the proposal ends `failed`). Only admins of the group: anyone else is `403 forbidden`, an unknown group `404 not_found`.',
      request: 'WebhookRequest',
      response: 'Proposal',
      result: 'WebhookResponse',
      status: 202,
      errors: OWNER,
    },
    listWebhooks: {
      method: 'get',
      path: '/orchestrator/groups/{group}/webhooks',
      tag: 'webhooks',
      operationId: 'listWebhooks',
      summary: 'Every subscription of the group: its fleet webhooks and its agents’ own.',
      description:
        'The group’s subscriptions, active or disabled (with `status_reason`): its fleet webhooks and each agent’s own; deleted ones are not listed, and secrets are never shown. Answered once the delivery store includes what the log holds now (`503 service_unavailable` with Retry-After when it is too far behind). Only the group’s owner: another wallet’s group is `403 forbidden`, an unknown one `404 not_found`.',
      response: 'WebhookListResponse',
      errors: OWNER,
    },
    deleteWebhook: {
      method: 'delete',
      path: '/orchestrator/webhooks/{webhook}',
      tag: 'webhooks',
      operationId: 'deleteWebhook',
      summary: 'Delete a subscription of one of the operator’s groups; nothing more is sent to it.',
      description:
        'Deletes the subscription (a fleet webhook or an agent’s own): nothing more is delivered to it. Only the owner of its group: another’s is `403 forbidden`; an unknown or deleted one `404 not_found`.',
      response: 'WebhookDeletedResponse',
      errors: OWNER,
    },
    listDeliveries: {
      method: 'get',
      path: '/orchestrator/webhooks/{webhook}/deliveries',
      tag: 'webhooks',
      operationId: 'listDeliveries',
      summary: 'The delivery log of a subscription, newest first: each delivery with its attempts.',
      description:
        'The subscription and its deliveries, newest first (at most `limit`, before `before` when given): each event’s payload, its status, and every attempt with its outcome, HTTP status, latency and error. Only the owner of its group: another’s is `403 forbidden`; an unknown or deleted one `404 not_found`.',
      query: 'DeliveriesQuery',
      response: 'DeliveriesResponse',
      errors: OWNER,
    },
    redeliver: {
      method: 'post',
      path: '/orchestrator/webhooks/{webhook}/redeliver',
      tag: 'webhooks',
      operationId: 'redeliver',
      summary: 'Send one event (event_id) or every event since a time (since) to the subscription again.',
      description:
        'Asks for the event `event_id`, or every event since `since`, to be delivered to the subscription again: their deliveries are set pending (attempts counted on) and the delivery worker sends them, signed as any other; answered 202 at once. Only the owner of its group: another’s is `403 forbidden`; an unknown or deleted one `404 not_found`.',
      request: 'RedeliverRequest',
      response: 'RedeliveryResponse',
      status: 202,
      errors: OWNER,
    },
    rotateWebhookSecret: {
      method: 'post',
      path: '/orchestrator/webhooks/{webhook}/rotate-secret',
      tag: 'webhooks',
      operationId: 'rotateWebhookSecret',
      summary: 'A new signing secret (shown once); the previous one signs too for grace_seconds.',
      description:
        'Makes a new signing secret, answered once (`cache-control: no-store`); deliveries carry a signature with each secret until `grace_seconds` (a day by default) have passed, so a receiver can switch without losing one. Only the owner of its group: another’s is `403 forbidden`; an unknown or deleted one `404 not_found`.',
      request: 'RotateSecretRequest',
      optionalBody: true,
      response: 'RotateSecretResponse',
      errors: OWNER,
    },
  },
});

export type RedeliverRequest = Shape<typeof RedeliverRequest>;
export type RotateSecretRequest = Shape<typeof RotateSecretRequest>;
export type DeliveriesQuery = Shape<typeof DeliveriesQuery>;
