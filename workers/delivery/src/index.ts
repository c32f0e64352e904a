/**
 * The delivery worker's parts, composed by its entry point (main.ts, the server topology) and by the
 * embedded default: the webhook relay (log → deliveries), the workers (deliveries → signed HTTPS
 * attempts) and the allow-list expiry scheduler. Wiring only; the rules live in shared/.
 */
import {
  Deliverer,
  Repository,
  groupFold,
  startExpiryScheduler,
  startWebhookRelay,
  type Attempt,
  type AttemptRecord,
  type DeliveryJob,
  type DeliveryStore,
  type EventStore,
  type GroupEvent,
  type GroupState,
  type JobQueue,
  type KeyVault,
  type ProcessOptions,
  type RetrySettings,
  type Subscription,
  type WebhookTransport,
} from '@tokenops/shared';

export interface DeliveryParts {
  store: EventStore;
  deliveries: DeliveryStore;
  queue: JobQueue<DeliveryJob>;
  vault: KeyVault;
  transport: WebhookTransport;
  retry: RetrySettings;
  now: () => number;
  /** Told of each attempt as it is recorded, with what comes next (metrics, logs). */
  observe?: (attempt: Attempt, next: AttemptRecord['next']) => void;
}

/** The workers: `concurrency` attempts in flight in this process; `observe` is told of failed jobs. */
export function startDeliveryWorkers(
  parts: DeliveryParts,
  concurrency: number,
  observe?: ProcessOptions['observe'],
) {
  const deliverer = new Deliverer(parts);
  return parts.queue.process((job) => deliverer.handle(job.data), {
    concurrency,
    ...(observe && { observe }),
  });
}

export const startRelay = (parts: DeliveryParts): Promise<Subscription> => startWebhookRelay(parts);

/** `groups`: the process's group repository when it has one (the embedded default's single writer). */
export function startExpiry(
  parts: Pick<DeliveryParts, 'store' | 'now'> & { groups?: Repository<GroupState, GroupEvent> },
  onError?: (err: unknown) => void,
) {
  return startExpiryScheduler({
    store: parts.store,
    groups: parts.groups ?? new Repository(parts.store, groupFold),
    now: parts.now,
    ...(onError && { onError }),
  });
}

export * from './wiring';
