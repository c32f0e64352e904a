/**
 * The job queue port: at-least-once jobs with deduplication, retries with exponential backoff and
 * jitter, concurrency, delays, and a failed set an operator can list and retry. Adapters: BullMQ on
 * Redis, and in-process (same contract, for the embedded default). A handler may run twice for one
 * job (a worker dies mid-job, a lock expires): every handler must be idempotent.
 */

export interface RetryPolicy {
  /** Attempts in all, the first included. */
  attempts: number;
  /** Delay before the first retry; each next one doubles. */
  backoffMs: number;
  /** Share of each delay drawn at random (0..1): spreads retries of jobs that failed together. */
  jitter: number;
}

export const DEFAULT_RETRY: RetryPolicy = { attempts: 8, backoffMs: 500, jitter: 0.5 };

export interface EnqueueOptions {
  /**
   * A job with this id is added once while one waits, is delayed or runs: a second is dropped. Once
   * it finished (done, or failed for good) the id is free again, so the queue remembers only the ids of
   * the jobs it holds (a day of remembered ids grew Redis without bound: docs/performance.md).
   */
  dedup?: { id: string };
  delayMs?: number;
  retry?: Partial<RetryPolicy>;
}

export interface EnqueueResult {
  jobId: string;
  /** True when an earlier job with the same dedupId stood in its way and nothing was added. */
  deduplicated: boolean;
}

export interface Job<T> {
  id: string;
  name: string;
  data: T;
  /** 1 on the first run, 2 on the first retry, … */
  attempt: number;
}

/**
 * What became of a job worth telling an operator: a run failed and the job will run again (`retry`),
 * a run failed and it has no attempts left (`dead`: it waits in the failed set), or its worker stopped
 * answering and the queue handed it on (`stalled`).
 */
export interface JobEvent {
  fate: 'retry' | 'dead' | 'stalled';
  queue: string;
  jobId: string;
  name?: string;
  /** The attempt that failed, and how many the job has in all. */
  attempt?: number;
  attempts?: number;
  error?: string;
}

export interface ProcessOptions {
  concurrency?: number;
  /** Told of each failed run, each dead job and each stalled job (logs, metrics). */
  observe?(event: JobEvent): void;
}

/** The event of a failed run: a retry while the job has attempts left, else dead. */
export function failureEvent(queue: string, job: Job<unknown>, attempts: number, err: unknown): JobEvent {
  return {
    fate: job.attempt >= attempts ? 'dead' : 'retry',
    queue,
    jobId: job.id,
    name: job.name,
    attempt: job.attempt,
    attempts,
    error: err instanceof Error ? err.message : String(err),
  };
}

export interface FailedJob<T> {
  id: string;
  name: string;
  data: T;
  error: string;
  attempts: number;
}

export interface JobCounts {
  waiting: number;
  active: number;
  delayed: number;
  failed: number;
}

export interface Worker {
  /** Stops taking jobs and waits for the ones in hand to finish. */
  close(): Promise<void>;
}

export interface JobQueue<T> {
  readonly name: string;
  enqueue(name: string, data: T, options?: EnqueueOptions): Promise<EnqueueResult>;
  process(handler: (job: Job<T>) => Promise<void>, options?: ProcessOptions): Worker;
  /** Jobs that used up their attempts, newest first. */
  failed(limit?: number): Promise<FailedJob<T>[]>;
  /**
   * Puts a failed job back to run again, with a fresh set of attempts: true. False when it is not in
   * the failed set (any more): another process put it back first, or it was removed. Several
   * processes may retry the same job at once: one of them puts it back, the others answer false.
   */
  retry(jobId: string): Promise<boolean>;
  counts(): Promise<JobCounts>;
  close(): Promise<void>;
}

/**
 * How long after its first attempt a job under `policy` runs its last, the runs themselves aside: the
 * sum of its retries' delays (`backoffDelay`), each between (1 - jitter) and all of backoffMs ×
 * 2^(n-1). The random part of each delay is uniform, so symmetric about its middle, and so is their
 * sum: its median is the middle of its range. (BullMQ's exponential backoff with jitter draws each
 * delay the same way.)
 */
export function retrySpan(policy: RetryPolicy): { minMs: number; medianMs: number; maxMs: number } {
  let maxMs = 0;
  for (let retry = 1; retry < policy.attempts; retry++) maxMs += policy.backoffMs * 2 ** (retry - 1);
  const minMs = maxMs * (1 - policy.jitter);
  return { minMs, medianMs: (minMs + maxMs) / 2, maxMs };
}

/** The delay before retry number `retry` (1-based) under `policy`, with `random` in [0, 1). */
export function backoffDelay(policy: RetryPolicy, retry: number, random: number): number {
  const base = policy.backoffMs * 2 ** (retry - 1);
  return Math.round(base * (1 - policy.jitter) + base * policy.jitter * random);
}
