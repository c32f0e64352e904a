/**
 * The executor's policies, read from the environment the same way by its main (the server topology)
 * and by the embedded default, so they are stated once: how many jobs run at once, a job's retries,
 * the payment watcher's intervals and the compute budget of the transactions it sends.
 */
import { DEFAULT_RETRY, type ComputeBudgetPolicy, type RetryPolicy } from '@tokenops/shared';
import { Env, computeBudgetPolicy } from '@tokenops/shared/process';

export interface ExecutorWiring {
  /** Jobs in flight at once: EXECUTOR_CONCURRENCY. */
  concurrency: number;
  /** A job's retries: EXECUTOR_RETRY_ATTEMPTS attempts in all, with DEFAULT_RETRY's backoff and jitter. */
  retry: RetryPolicy;
  /** The payment watcher: PAYMENT_WATCH_INTERVAL_MS and PAYMENT_SWEEP_INTERVAL_MS. */
  payments: { intervalMs: number; sweepMs: number };
  /** The compute budget of what it sends: PRIORITY_FEE, its percentile and cap, COMPUTE_UNIT_MARGIN_PERCENT. */
  computeBudget: ComputeBudgetPolicy;
}

/** Reads the wiring from `env`; without one, the catalogue's defaults for the embedded default. */
export function executorWiring(env: Env = new Env({}, 'embedded')): ExecutorWiring {
  return {
    concurrency: env.int('EXECUTOR_CONCURRENCY'),
    retry: { ...DEFAULT_RETRY, attempts: env.int('EXECUTOR_RETRY_ATTEMPTS') },
    payments: {
      intervalMs: env.int('PAYMENT_WATCH_INTERVAL_MS'),
      sweepMs: env.int('PAYMENT_SWEEP_INTERVAL_MS'),
    },
    computeBudget: computeBudgetPolicy(env),
  };
}
