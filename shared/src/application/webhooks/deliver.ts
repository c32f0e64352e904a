/**
 * One delivery attempt, as a job: sign the payload with the subscription's current secrets, POST it
 * (the transport guards the address and cuts the attempt at 5 s), record the attempt in the delivery
 * log, and schedule the next attempt when it failed. A 2xx delivers; 410 disables the subscription; a
 * 3xx or anything else retries: the n-th retry waits a random time between half and all of
 * base × 2^(n-1), at most an hour, until `retryForMs` after the first attempt, then the delivery is
 * dead. A subscription deleted or disabled meanwhile cancels what is left.
 *
 * One endpoint never holds more than `perEndpoint` of this worker's slots: a job for an endpoint at
 * its cap waits a moment off the queue's slots, so a slow or failing receiver delays only itself.
 */
import type {
  Attempt,
  AttemptRecord,
  DeliveryStore,
  NewDelivery,
  WebhookTransport,
} from '../../deliveries/port';
import type { EventStore } from '../../event-store/port';
import type { JobQueue } from '../../queue/port';
import { streams } from '../../domain/events';
import { signatureHeaders } from '../../webhooks/signing';
import type { KeyVault } from '../credentials';

export interface DeliveryJob {
  webhook_id: string;
  event_id: string;
  event: string;
  payload: string;
  /** 1 for the first attempt. */
  attempt: number;
  /** When the first attempt was due: retries stop `retryForMs` after it. */
  first_at: number;
}

export interface RetrySettings {
  baseMs: number;
  forMs: number;
  maxDelayMs: number;
}

export const DEFAULT_DELIVERY_RETRY: RetrySettings = {
  baseMs: 5_000,
  forMs: 3 * 24 * 60 * 60 * 1000,
  maxDelayMs: 60 * 60 * 1000,
};

/** The wait before retry number `n` (1-based): between half and all of min(base × 2^(n-1), max). */
export function retryDelay(settings: RetrySettings, n: number, random: number): number {
  const ceiling = Math.min(settings.baseMs * 2 ** (n - 1), settings.maxDelayMs);
  return Math.round(ceiling / 2 + (ceiling / 2) * random);
}

/**
 * A job per attempt, each attempt once: the queue drops a second job of the same attempt while the
 * first waits (up to an hour before a retry) or runs, so a relay that starts enqueues nothing twice.
 * Once the attempt finished it is on record and a relay enqueues the next one; a job of the same
 * attempt after that only means one more attempt (the receiver deduplicates by `webhook-id`). A
 * redelivery is a job of its own (its request's id in the job id), even while a retry is scheduled.
 */
const attemptOnce = (webhookId: string, eventId: string, attempt: number, redelivery?: string) => ({
  id: `${webhookId}:${eventId}:${attempt}${redelivery ? `:${redelivery}` : ''}`,
});

export async function enqueueDelivery(
  queue: JobQueue<DeliveryJob>,
  d: NewDelivery,
  now: number,
): Promise<void> {
  const attempt = (d.attempts ?? 0) + 1;
  await queue.enqueue(
    'deliver',
    {
      webhook_id: d.webhook_id,
      event_id: d.event_id,
      event: d.event,
      payload: d.payload,
      attempt,
      first_at: d.attempts ? now : d.created_at,
    },
    {
      dedup: attemptOnce(d.webhook_id, d.event_id, attempt, d.redelivery),
      ...(d.next_attempt_at !== undefined && { delayMs: Math.max(0, d.next_attempt_at - now) }),
    },
  );
}

export class Deliverer {
  private readonly inFlight = new Map<string, number>();
  /** Attempts waiting to be recorded: the attempts of one turn of the event loop go in one statement. */
  private batch: { item: AttemptRecord; done: () => void; failed: (err: unknown) => void }[] = [];
  /** Opened signing secrets by their sealed text (a rotation seals a new one, so a hit is current). */
  private readonly opened = new Map<string, string>();

  constructor(
    private readonly deps: {
      deliveries: DeliveryStore;
      queue: JobQueue<DeliveryJob>;
      store: EventStore;
      vault: KeyVault;
      transport: WebhookTransport;
      retry: RetrySettings;
      now: () => number;
      /** At most this many attempts in flight per subscription in this process. */
      perEndpoint?: number;
      random?: () => number;
      /** Told of each attempt as it is recorded, with what comes next (metrics, logs). */
      observe?: (attempt: Attempt, next: AttemptRecord['next']) => void;
    },
  ) {}

  async handle(job: DeliveryJob): Promise<void> {
    const { deliveries, queue, transport, now } = this.deps;
    const sub = await deliveries.subscription(job.webhook_id);
    const at = now();
    if (!sub || sub.status !== 'active') {
      await this.record(
        {
          ...this.ids(job),
          attempt: job.attempt,
          at,
          outcome: 'cancelled',
          latency_ms: 0,
          error: `subscription ${sub?.status ?? 'unknown'}`,
        },
        { status: 'cancelled' },
      );
      return;
    }
    const busy = this.inFlight.get(sub.webhook_id) ?? 0;
    if (busy >= (this.deps.perEndpoint ?? 4)) {
      await queue.enqueue('deliver', job, { delayMs: 100 + Math.round(Math.random() * 200) });
      return;
    }
    this.inFlight.set(sub.webhook_id, busy + 1);
    let result: Awaited<ReturnType<WebhookTransport['send']>>;
    try {
      const secrets = sub.secrets
        .filter((s) => s.until === undefined || s.until > at)
        .map((s) => this.secret(s.sealed, sub.webhook_id));
      const headers = signatureHeaders({
        id: job.event_id,
        event: job.event,
        timestamp: Math.floor(at / 1000),
        body: job.payload,
        secrets,
      });
      result = await transport.send({ url: sub.url, headers, body: job.payload });
    } finally {
      const left = (this.inFlight.get(sub.webhook_id) ?? 1) - 1;
      if (left > 0) this.inFlight.set(sub.webhook_id, left);
      else this.inFlight.delete(sub.webhook_id);
    }
    const attempt = {
      ...this.ids(job),
      attempt: job.attempt,
      at,
      outcome: result.outcome,
      latency_ms: result.latencyMs,
      ...(result.status !== undefined && { status_code: result.status }),
      ...(result.error !== undefined && { error: result.error }),
    };
    if (result.outcome === 'delivered') {
      await this.record(attempt, { status: 'delivered' });
      return;
    }
    if (result.outcome === 'gone') {
      await deliveries.disable(sub.webhook_id, 'the receiver answered 410 Gone');
      await this.deps.store.append(
        streams.webhooks(sub.agent_id ? { agentId: sub.agent_id } : { groupId: sub.group_id }),
        [
          {
            type: 'webhook.disabled',
            data: { webhook_id: sub.webhook_id, reason: 'the receiver answered 410 Gone', at },
          },
        ],
        'any',
      );
      await this.record(attempt, { status: 'failed' });
      return;
    }
    const delay = retryDelay(this.deps.retry, job.attempt, (this.deps.random ?? Math.random)());
    const nextAt = at + delay;
    if (nextAt - job.first_at > this.deps.retry.forMs) {
      await this.record(attempt, { status: 'dead' });
      return;
    }
    await queue.enqueue(
      'deliver',
      { ...job, attempt: job.attempt + 1 },
      {
        delayMs: delay,
        dedup: attemptOnce(job.webhook_id, job.event_id, job.attempt + 1),
      },
    );
    await this.record(attempt, { status: 'failed', next_attempt_at: nextAt });
  }

  private secret(sealed: string, webhookId: string): string {
    let secret = this.opened.get(sealed);
    if (secret === undefined) {
      secret = Buffer.from(this.deps.vault.open(sealed, webhookId)).toString('utf8');
      if (this.opened.size >= 10_000) this.opened.clear();
      this.opened.set(sealed, secret);
    }
    return secret;
  }

  /** Records an attempt; resolves once it is stored (a job is done only then). */
  private record(attempt: Attempt, next: AttemptRecord['next']): Promise<void> {
    this.deps.observe?.(attempt, next);
    return new Promise((done, failed) => {
      if (this.batch.length === 0) setImmediate(() => void this.flush());
      this.batch.push({ item: { attempt, next }, done, failed });
    });
  }

  private async flush(): Promise<void> {
    const batch = this.batch;
    this.batch = [];
    try {
      await this.deps.deliveries.recordAttempts(batch.map((b) => b.item));
      for (const b of batch) b.done();
    } catch (err) {
      for (const b of batch) b.failed(err);
    }
  }

  private ids(job: DeliveryJob) {
    return { webhook_id: job.webhook_id, event_id: job.event_id };
  }
}
