/**
 * The delivery store port: what the webhook relay and the delivery worker keep, and what the operator
 * reads. Subscriptions are a projection of the log (`webhook.*` events); each delivery is one event for
 * one subscription, kept once per (webhook, event id); each attempt is a row of its delivery log.
 * The relay's checkpoint moves in the same transaction as what it derived, and only from the position
 * it read (a relay that lost its lease to another cannot write behind it). Adapter: SQL (PostgreSQL
 * server, or PGlite embedded: the same SQL).
 */
import type { LogPosition } from '../event-store/port';

export type SubscriptionStatus = 'active' | 'disabled' | 'deleted';

export interface WebhookSubscription {
  webhook_id: string;
  agent_id?: string;
  group_id: string;
  url: string;
  event_types: string[];
  /** Sealed signing secrets, newest first: during a rotation's grace the previous one signs too. */
  secrets: { sealed: string; until?: number }[];
  status: SubscriptionStatus;
  /** Why, when disabled (a 410 from the receiver). */
  status_reason?: string;
  created_at: number;
}

export type DeliveryStatus = 'pending' | 'delivered' | 'failed' | 'dead' | 'cancelled';

export interface NewDelivery {
  webhook_id: string;
  event_id: string;
  event: string;
  /** The payload's JSON text, signed as is. */
  payload: string;
  created_at: number;
  /** Attempts already made (a delivery sent again after a redelivery request, or pending after a restart). */
  attempts?: number;
  /** When its next attempt is due (pending after a restart). */
  next_attempt_at?: number;
  /** Set when it is sent again at an operator's request: that request's id (its job is not a retry's). */
  redelivery?: string;
}

export interface Attempt {
  webhook_id: string;
  event_id: string;
  attempt: number;
  at: number;
  outcome: 'delivered' | 'failed' | 'gone' | 'cancelled';
  status_code?: number;
  latency_ms: number;
  error?: string;
}

export interface AttemptRecord {
  attempt: Attempt;
  next: { status: DeliveryStatus; next_attempt_at?: number };
}

export interface Delivery extends NewDelivery {
  status: DeliveryStatus;
  attempts: number;
  updated_at: number;
  next_attempt_at?: number;
  /** Every attempt, oldest first. */
  log: Omit<Attempt, 'webhook_id' | 'event_id'>[];
}

export interface RelayCommit {
  /** The checkpoint read before (undefined: none yet); the commit fails if it moved meanwhile. */
  from: LogPosition | undefined;
  to: LogPosition;
  subscriptions: WebhookSubscription[];
  deliveries: NewDelivery[];
  /** Deliveries to send again (a redelivery request): set pending with attempts counted on. */
  redeliver: { request_id: string; webhook_id: string; event_ids?: string[]; since?: number }[];
}

export class RelayFenced extends Error {
  constructor() {
    super('another relay moved the checkpoint: this one lost its lease');
    this.name = 'RelayFenced';
  }
}

export interface DeliveryStore {
  relayCheckpoint(): Promise<LogPosition | undefined>;
  /** Applies a relay batch; answers the deliveries to enqueue (new, or set pending again). */
  commitRelay(commit: RelayCommit): Promise<NewDelivery[]>;
  subscription(webhookId: string): Promise<WebhookSubscription | undefined>;
  /** Active and disabled subscriptions (not deleted), of a group's fleet and agents, or of one agent. */
  subscriptions(owner: { groupId?: string; agentId?: string }): Promise<WebhookSubscription[]>;
  activeSubscriptions(): Promise<WebhookSubscription[]>;
  /** Marks a subscription disabled at once (410), before the log's event reaches the relay. */
  disable(webhookId: string, reason: string): Promise<void>;
  /** Records attempts with what each delivery became, all in one statement. */
  recordAttempts(items: readonly AttemptRecord[]): Promise<void>;
  /** Newest first. */
  deliveries(webhookId: string, options: { limit: number; before?: number }): Promise<Delivery[]>;
  /** The deliveries of these events to these subscriptions (any that exist), oldest first. */
  deliveriesOf(webhookIds: readonly string[], eventIds: readonly string[]): Promise<Delivery[]>;
  /**
   * Deliveries not finished: pending, or failed with a retry due. The relay enqueues them again when
   * it starts (after a restart of the embedded queue, or a Redis that lost its jobs).
   */
  pending(limit: number): Promise<NewDelivery[]>;
  close(): Promise<void>;
}

/** One HTTPS attempt (the SSRF-guarded sender, webhooks/sender.ts): never throws for the network. */
export interface WebhookTransport {
  send(request: { url: string; headers: Record<string, string>; body: string }): Promise<{
    outcome: 'delivered' | 'failed' | 'gone';
    status?: number;
    latencyMs: number;
    error?: string;
  }>;
}
