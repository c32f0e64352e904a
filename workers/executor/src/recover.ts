/**
 * Intents that waited on the chain past their job's retry budget finish by themselves once it answers.
 *
 * A job retries with backoff (EXECUTOR_RETRY_ATTEMPTS: its last attempt 31.8 to 63.5 s after its
 * first by default, `retrySpan`); a chain node away for longer leaves the job dead in the failed set,
 * its intent reserved with no outcome, and the agent's retries answering idempotency_in_progress.
 * Each pass (every `intervalMs`) counts the dead jobs that died because the chain did not answer
 * (`tokenops_intents_waiting_on_chain`) and, when there are some and the chain answers now, puts them
 * back in the queue with fresh attempts. The job then takes
 * execute.ts's exactly-once steps as any retry does: a submission on record is asked of the chain
 * (landed: confirmed; failed: failed; never landed: the same bytes again, or built anew once their
 * blockhash expired), nothing on record is built and sent, and the outcome releases or spends the
 * reservation. A job that died of anything else is left to the operator (docs/operations.md).
 * Every executor runs it, at the same time as the others: a job another executor put back between
 * this pass's reading of the failed set and its retry has moved on (the queue's retry answers false,
 * and its read of the failed set leaves out what left it meanwhile), which is no failure; a pass
 * fails only when the queue does not answer.
 */
import { type JobQueue } from '@tokenops/shared';
import { chainWasAway } from '@tokenops/shared/adapters';

/**
 * Whether a job's failure is one this recovery puts back once the chain answers: the chain did not
 * answer. What the job observer labels `cause="chain"` (a dead one is no operator's to retry).
 */
export const waitsOnChain = (error: string): boolean => chainWasAway(error);

/** Jobs put back at once (each is its own atomic move in the queue). */
const RETRIES_AT_ONCE = 32;

export interface ChainRecovery {
  /**
   * One pass: how many intents wait on the chain, how many this pass put back to run, and how many
   * had moved on before it could (another executor put them back).
   */
  pass(): Promise<{ waiting: number; retried: number; movedOn: number }>;
  stop(): void;
}

export function recoverChainWaits<T>(
  queue: Pick<JobQueue<T>, 'failed' | 'retry'>,
  options: {
    intervalMs: number;
    /** Resolves when the chain answers (its health check); rejects while it is away. */
    chainAnswers: () => Promise<unknown>;
    /** Told the count of each pass (the metric). */
    onWaiting?: (count: number) => void;
    onRetried?: (jobIds: string[]) => void;
    onError?: (err: unknown) => void;
  },
): ChainRecovery {
  const pass = async () => {
    const waiting = (await queue.failed(1_000)).filter((job) => waitsOnChain(job.error));
    options.onWaiting?.(waiting.length);
    if (waiting.length === 0) return { waiting: 0, retried: 0, movedOn: 0 };
    try {
      await options.chainAnswers();
    } catch {
      return { waiting: waiting.length, retried: 0, movedOn: 0 }; // still away: the next pass looks again
    }
    const retried: string[] = [];
    let movedOn = 0;
    // A few at a time: a round trip or two to Redis each, and up to a thousand after a long outage.
    for (let i = 0; i < waiting.length; i += RETRIES_AT_ONCE) {
      const some = waiting.slice(i, i + RETRIES_AT_ONCE);
      const back = await Promise.all(some.map((job) => queue.retry(job.id)));
      some.forEach((job, k) => {
        if (back[k]) retried.push(job.id);
        else movedOn += 1; // another executor put it back first
      });
    }
    if (retried.length > 0) options.onRetried?.(retried);
    options.onWaiting?.(0); // each is back in the queue, put there by this pass or another
    return { waiting: waiting.length, retried: retried.length, movedOn };
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
