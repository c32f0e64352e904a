/**
 * What on-call reads of the background work, as a log line and a metric each: a job run that failed
 * (retried or dead) or stalled, a webhook attempt and what comes next, a lease taken or given up, and
 * how far a relay is behind the log.
 */
import type { AttemptRecord, Attempt } from '../deliveries/port';
import type { EventStore, LogPosition } from '../event-store/port';
import type { LeaseChange } from '../read-models/lease';
import type { JobEvent } from '../queue/port';
import type { Logger } from './logger';
import type { Metrics } from './metrics';

/** Each outcome an executor records: `tokenops_intents_total{outcome}` and `tokenops_intent_outcome_seconds`. */
export const observeOutcomes =
  (metrics: Metrics, now: () => number = Date.now) =>
  (outcome: string, intent: { action: string; at: number }): void => {
    metrics.intents.inc({ outcome });
    metrics.outcomeLatency.observe({ action: intent.action, outcome }, Math.max(0, now() - intent.at) / 1000);
  };

/**
 * Why a job run failed, as on-call must tell it: `chain` when the chain did not answer and the process
 * puts such a job back by itself once it answers (the executor's chain recovery), `other` otherwise.
 */
export type JobFailureCause = 'chain' | 'other';

/**
 * Each failed, dead or stalled job: `tokenops_job_failures_total{queue,fate,cause}` and a log line.
 * `waitsOnChain` tells the failures the process recovers from by itself once the chain answers (the
 * executor's chain recovery; absent where nothing does): a job dead of one of those is no operator's
 * to retry, and says so.
 */
export const observeJobs =
  (logger: Logger, metrics?: Metrics, waitsOnChain?: (error: string) => boolean) =>
  (e: JobEvent): void => {
    const cause: JobFailureCause =
      e.error !== undefined && waitsOnChain?.(e.error) === true ? 'chain' : 'other';
    metrics?.jobFailures.inc({ queue: e.queue, fate: e.fate, cause });
    const fields = {
      queue: e.queue,
      job_id: e.jobId,
      ...(e.name !== undefined && { job: e.name }),
      ...(e.attempt !== undefined && { attempt: e.attempt, attempts: e.attempts }),
      ...(e.error !== undefined && { error: e.error }),
    };
    if (e.fate === 'dead' && cause === 'chain')
      logger.warn('job dead while the chain did not answer: it runs again by itself once it answers', fields);
    else if (e.fate === 'dead') logger.error('job dead: no attempts left, kept in the failed set', fields);
    else if (e.fate === 'retry') logger.warn('job failed: will retry', fields);
    else logger.warn('job stalled: its worker stopped answering; handed to another', fields);
  };

/**
 * Each webhook attempt as it is recorded: counted and timed by outcome; a failed one logged with what
 * comes next (a retry at a time, or dead), and a failure of the dead kind counted as a dead job.
 */
export const observeAttempts =
  (logger: Logger, metrics?: Metrics) =>
  (attempt: Attempt, next: AttemptRecord['next']): void => {
    metrics?.webhookAttempts.inc({ outcome: attempt.outcome });
    metrics?.webhookLatency.observe({ outcome: attempt.outcome }, attempt.latency_ms / 1000);
    if (attempt.outcome === 'delivered') return;
    const fields = {
      webhook_id: attempt.webhook_id,
      event_id: attempt.event_id,
      attempt: attempt.attempt,
      outcome: attempt.outcome,
      ...(attempt.status_code !== undefined && { status_code: attempt.status_code }),
      ...(attempt.error !== undefined && { error: attempt.error }),
    };
    if (next.status === 'dead') {
      metrics?.jobFailures.inc({ queue: 'deliver', fate: 'dead', cause: 'other' });
      logger.error('webhook delivery dead: its retry window is over', fields);
    } else if (next.next_attempt_at !== undefined) {
      metrics?.jobFailures.inc({ queue: 'deliver', fate: 'retry', cause: 'other' });
      logger.warn('webhook attempt failed: will retry', {
        ...fields,
        next_attempt_at: new Date(next.next_attempt_at).toISOString(),
      });
    } else logger.warn('webhook delivery ended without delivering', { ...fields, status: next.status });
  };

/** A lease taken or given up: `tokenops_lease_held{lease}` 1 or 0, and a log line. */
export function observeLease(logger: Logger, lease: string, metrics?: Metrics) {
  metrics?.leaseHeld.set({ lease }, 0); // a standby says so from its start
  return (change: LeaseChange): void => {
    metrics?.leaseHeld.set({ lease }, change.held ? 1 : 0);
    if (change.held)
      logger.info('lease taken: this process runs it now', { lease, waited_ms: change.waitedMs });
    else if (change.reason === 'stopping') logger.info('lease given up: stopping', { lease });
    else logger.warn(`lease given up: ${REASONS[change.reason]}`, { lease });
  };
}

const REASONS = {
  lost: 'it ran out before this process renewed it (another may hold it now)',
  failed: 'its work failed; competing for it again',
  ended: 'its work ended; competing for it again',
};

/**
 * Samples how far a relay's checkpoint is behind the head of the log into
 * `tokenops_relay_lag_events{relay}` every second (every process of the relay's kind reports it, so
 * it keeps growing when the relay's holder died); returns the stop.
 */
export function watchRelayLag(
  metrics: Metrics,
  relay: string,
  store: Pick<EventStore, 'headPosition'>,
  checkpoint: () => Promise<LogPosition | undefined>,
): () => void {
  const timer = setInterval(() => {
    void Promise.all([store.headPosition(), checkpoint()]).then(
      ([head, at]) => {
        const behind = head.prepare - (at?.prepare ?? 0n);
        metrics.relayLag.set({ relay }, Number(behind > 0n ? behind : 0n));
      },
      () => undefined,
    );
  }, 1_000);
  timer.unref();
  return () => clearInterval(timer);
}
