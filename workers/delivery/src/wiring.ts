/**
 * The delivery worker's policies, used the same way by its main (the server topology) and by the
 * embedded default, so they are stated once.
 */
import { DEFAULT_DELIVERY_RETRY, type RetryPolicy, type RetrySettings } from '@tokenops/shared';
import { type WebhookSettings } from '@tokenops/shared/process';

/**
 * The delivery queue's own retries of a job (an attempt whose run failed, not a receiver's refusal:
 * the webhook's schedule is `deliveryRetry`).
 */
export const DELIVERY_QUEUE_RETRY: RetryPolicy = { attempts: 20, backoffMs: 1_000, jitter: 0.5 };

/** A failed delivery's retry schedule: WEBHOOK_RETRY_BASE_MS, WEBHOOK_RETRY_FOR_MS. */
export const deliveryRetry = (hooks: Pick<WebhookSettings, 'retryBaseMs' | 'retryForMs'>): RetrySettings => ({
  ...DEFAULT_DELIVERY_RETRY,
  baseMs: hooks.retryBaseMs,
  forMs: hooks.retryForMs,
});
