/**
 * Intents that waited on the chain past their job's retry budget finish by themselves once it answers.
 *
 * A job retries with backoff (EXECUTOR_RETRY_ATTEMPTS, about 55 s by default); a chain node away for
 * longer leaves the job dead in the failed set, its intent reserved with no outcome, and the agent's
 * retries answering idempotency_in_progress. Each pass (every `intervalMs`) counts the dead jobs that
 * died because the chain did not answer (`tokenops_intents_waiting_on_chain`) and, when there are some
 * and the chain answers now, puts them back in the queue with fresh attempts. The job then takes
 * execute.ts's exactly-once steps as any retry does: a submission on record is asked of the chain
 * (landed: confirmed; failed: failed; never landed: the same bytes again, or built anew once their
 * blockhash expired), nothing on record is built and sent, and the outcome releases or spends the
 * reservation. A job that died of anything else is left to the operator (docs/operations.md).
 * Every executor may run it: retrying a job already back in the queue changes nothing.
 */
import { type JobQueue } from '@tokenops/shared';
import { chainWasAway } from '@tokenops/shared/adapters';

export interface ChainRecovery {
  /** One pass: how many intents wait on the chain, and how many were put back to run. */
  pass(): Promise<{ waiting: number; retried: number }>;
  stop(): void;
}

export function recoverChainWaits<T>(
  queue: Pick<JobQueue<T>, 'failed' | 'retry'>,
  options: {
    intervalMs: number;
    /** Resolves when the chain answers (its health check); rejects while it is away. */
    chainAnswers: () => Promise<void>;
    /** Told the count of each pass (the metric). */
    onWaiting?: (count: number) => void;
    onRetried?: (jobIds: string[]) => void;
    onError?: (err: unknown) => void;
  },
): ChainRecovery {
  const pass = async () => {
    const waiting = (await queue.failed(1_000)).filter((job) => chainWasAway(job.error));
    options.onWaiting?.(waiting.length);
    if (waiting.length === 0) return { waiting: 0, retried: 0 };
    try {
      await options.chainAnswers();
    } catch {
      return { waiting: waiting.length, retried: 0 }; // still away: the next pass looks again
    }
    const retried: string[] = [];
    for (const job of waiting) {
      // Another executor may have put it back first: it is no longer in the failed set.
      await queue.retry(job.id).then(
        () => retried.push(job.id),
        () => undefined,
      );
    }
    if (retried.length > 0) options.onRetried?.(retried);
    options.onWaiting?.(waiting.length - retried.length);
    return { waiting: waiting.length, retried: retried.length };
  };
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    pass()
      .catch((err: unknown) => options.onError?.(err))
      .finally(() => (running = false));
  }, options.intervalMs);
  timer.unref();
  return { pass, stop: () => clearInterval(timer) };
}
