/**
 * The delivery worker's parts, composed by its entry point (main.ts, the server topology) and by the
 * embedded default: the webhook relay (log → deliveries), the workers (deliveries → signed HTTPS
 * attempts) and the expiry scheduler (allow-list entries, held spends). Wiring only; the rules live in shared/.
 */
import {
  Deliverer,
  Repository,
  agentFold,
  approvalsFold,
  budgetFold,
  groupSpendsFold,
  groupFold,
  startExpiryScheduler,
  startWebhookRelay,
  type Attempt,
  type AttemptRecord,
  type DeliveryJob,
  type DeliveryStore,
  type EventStore,
  type ApprovalContext,
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

/** `repositories`: the process's own when it has them (the embedded default's single writer). */
export function startExpiry(
  parts: Pick<DeliveryParts, 'store' | 'now'> & { repositories?: ApprovalContext },
  onError?: (err: unknown) => void,
) {
  const { store, now } = parts;
  const repositories: ApprovalContext = parts.repositories ?? {
    now,
    store,
    groups: new Repository(store, groupFold),
    agents: new Repository(store, agentFold),
    budgets: new Repository(store, budgetFold),
    groupSpends: new Repository(store, groupSpendsFold),
    approvals: new Repository(store, approvalsFold),
  };
  return startExpiryScheduler({
    store,
    groups: repositories.groups,
    approvals: repositories,
    now,
    ...(onError && { onError }),
  });
}

export * from './wiring';
