/**
 * The job queue on BullMQ (Redis). Deduplication uses BullMQ's `deduplication` option in simple mode
 * (an id, no TTL): its key lives while the job waits, is delayed or runs, and BullMQ deletes it when
 * the job completes or fails for good, so Redis holds the ids of the jobs it holds and no more (in
 * throttle mode, a TTL of a day, every intent's id stayed a day: the hour's soak grew Redis 10 MB
 * every 10 minutes). Retries use BullMQ's
 * exponential backoff with jitter. Stalled jobs (a worker that died) are put back by BullMQ itself,
 * within seconds: a job's lock lasts `lockMs` (3 s by default) and is renewed every third of it, and
 * every worker runs BullMQ's stalled-job check every second, so a killed worker's jobs are back in the
 * queue at most about `lockMs` + 2 s after its death (TAKEOVER).
 */
import { SETTINGS } from '../settings/catalogue';
import { ErrorCode, Queue, Worker as BullWorker, type ConnectionOptions, type JobsOptions } from 'bullmq';
import type Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
import { TAKEOVER } from '../settings/takeover';
import {
  DEFAULT_RETRY,
  failureEvent,
  type EnqueueOptions,
  type EnqueueResult,
  type FailedJob,
  type Job,
  type JobCounts,
  type JobQueue,
  type ProcessOptions,
  type RetryPolicy,
  type Worker,
} from './port';

export interface BullJobQueueOptions {
  /** Redis URL, e.g. redis://127.0.0.1:6379. */
  url: string;
  /** Key prefix, so several deployments or test runs share one Redis. */
  prefix?: string;
  retry?: RetryPolicy;
  /**
   * How long completed jobs are kept (seconds), and at most how many: nothing reads them, they are for
   * an operator looking into Redis. Failed ones stay until retried or cleaned.
   */
  keepCompletedSeconds?: number;
  keepCompletedCount?: number;
}

/** A job's lock when the caller names none: a dead worker's jobs move on within about 5 s. */
export const DEFAULT_JOB_LOCK_MS = SETTINGS.EXECUTOR_LOCK_MS.default;

function connectionFrom(url: string): ConnectionOptions {
  const u = new URL(url);
  return {
    host: u.hostname,
    port: Number(u.port || 6379),
    ...(u.password && { password: decodeURIComponent(u.password) }),
    ...(u.username && { username: decodeURIComponent(u.username) }),
    ...(u.pathname.length > 1 && { db: Number(u.pathname.slice(1)) }),
    // Workers block on Redis; BullMQ wants no per-request retry limit on their connections.
    maxRetriesPerRequest: null,
  };
}

/**
 * Closes a worker once its jobs in hand are done. BullMQ 6.7's `Worker.close()` first disconnects the
 * worker's blocking connection and waits for ioredis to say it ended; a connection between two
 * attempts to reconnect never says so (ioredis only cancels the next attempt), so a worker closed
 * within the retry delay after Redis came back (a second, up to 20 s after a long outage) never
 * closed, and its process waited out its grace and exited 1 (taskforcesh/bullmq#4656, open). Such a
 * connection is told to connect now: the disconnect then ends that attempt, which ioredis does report.
 * (While Redis is still down, closing the worker's other connection waits for Redis all the same.)
 */
async function closeWorker(worker: BullWorker): Promise<void> {
  // BullMQ keeps the blocking connection on its backend; if a later version moves it, this does nothing.
  const internals = worker as unknown as { backend?: { blockingConnection?: { client?: Promise<Redis> } } };
  const blocking = await internals.backend?.blockingConnection?.client?.catch(() => undefined);
  if (blocking?.status === 'reconnecting') blocking.connect().catch(() => undefined);
  await worker.close();
}

export class BullJobQueue<T> implements JobQueue<T> {
  private readonly queue: Queue;
  private readonly connection: ConnectionOptions;
  private readonly prefix: string;
  private readonly retryPolicy: RetryPolicy;
  private readonly workers = new Set<BullWorker>();

  constructor(
    readonly name: string,
    private readonly options: BullJobQueueOptions,
  ) {
    this.connection = connectionFrom(options.url);
    this.prefix = options.prefix ?? 'bull';
    this.retryPolicy = options.retry ?? DEFAULT_RETRY;
    this.queue = new Queue(name, { connection: this.connection, prefix: this.prefix });
  }

  async enqueue(name: string, data: T, options: EnqueueOptions = {}): Promise<EnqueueResult> {
    const policy = { ...this.retryPolicy, ...options.retry };
    const jobId = randomUUID();
    const opts: JobsOptions = {
      jobId,
      attempts: policy.attempts,
      backoff: { type: 'exponential', delay: policy.backoffMs, jitter: policy.jitter },
      // Bounded by count too: by age alone Redis held an hour of jobs, growing with the rate (a soak
      // at 45 requests/s grew it 10 MB a minute).
      removeOnComplete: {
        age: this.options.keepCompletedSeconds ?? 3600,
        count: this.options.keepCompletedCount ?? 1000,
      },
      removeOnFail: false,
      ...(options.delayMs !== undefined && { delay: options.delayMs }),
      ...(options.dedup && { deduplication: { id: options.dedup.id } }),
    };
    const job = await this.queue.add(name, data, opts);
    return { jobId: job.id ?? jobId, deduplicated: job.id !== jobId };
  }

  /**
   * `lockMs`: how long a job stays with a worker that stops renewing its lock (killed) before BullMQ's
   * stalled-job check, which runs every second, hands it to another; a live worker renews it every
   * third of it, so it keeps its jobs through a pause of its event loop shorter than two thirds of it.
   * A job may stall several times (the handler is idempotent).
   */
  process(
    handler: (job: Job<T>) => Promise<void>,
    options: ProcessOptions & { lockMs?: number } = {},
  ): Worker {
    const lockMs = options.lockMs ?? DEFAULT_JOB_LOCK_MS;
    const { observe } = options;
    const worker = new BullWorker(
      this.name,
      async (job) => {
        const run = { id: job.id!, name: job.name, data: job.data as T, attempt: job.attemptsMade + 1 };
        try {
          await handler(run);
        } catch (err) {
          observe?.(failureEvent(this.name, run, job.opts.attempts ?? 1, err));
          throw err;
        }
      },
      {
        connection: this.connection,
        prefix: this.prefix,
        concurrency: options.concurrency ?? 1,
        lockDuration: lockMs,
        lockRenewTime: Math.floor(lockMs / 3),
        stalledInterval: TAKEOVER.stallCheckMs,
        maxStalledCount: 10,
      },
    );
    worker.on('error', () => undefined); // connection errors: the worker reconnects by itself
    if (observe) worker.on('stalled', (jobId) => observe({ fate: 'stalled', queue: this.name, jobId }));
    this.workers.add(worker);
    return {
      close: async () => {
        this.workers.delete(worker);
        await closeWorker(worker);
      },
    };
  }

  async failed(limit = 100): Promise<FailedJob<T>[]> {
    // BullMQ reads the failed set's ids, then each job on its own: a job another process put back
    // meanwhile (job.retry deletes its failedReason, reprocessJob-9.lua) or removed is no longer
    // failed, and is left out.
    const jobs = await this.queue.getFailed(0, limit - 1);
    return jobs.flatMap((j) =>
      typeof j.failedReason === 'string'
        ? [{ id: j.id!, name: j.name, data: j.data as T, error: j.failedReason, attempts: j.attemptsMade }]
        : [],
    );
  }

  async retry(jobId: string): Promise<boolean> {
    const job = await this.queue.getJob(jobId);
    if (!job) return false;
    try {
      await job.retry('failed', { resetAttemptsMade: true });
      return true;
    } catch (err) {
      // The script moves the job only if it is still in the failed set (ZREM): another process
      // put it back first (JobNotInState), or it is gone (JobNotExist).
      const code = (err as { code?: unknown }).code;
      if (code === ErrorCode.JobNotInState || code === ErrorCode.JobNotExist) return false;
      throw err;
    }
  }

  async counts(): Promise<JobCounts> {
    const c = await this.queue.getJobCounts('waiting', 'active', 'delayed', 'failed');
    return { waiting: c.waiting ?? 0, active: c.active ?? 0, delayed: c.delayed ?? 0, failed: c.failed ?? 0 };
  }

  /** Removes the queue's keys (tests, and an operator resetting a queue). */
  async obliterate(): Promise<void> {
    await this.queue.obliterate({ force: true });
  }

  async close(): Promise<void> {
    await Promise.all([...this.workers].map(closeWorker));
    await this.queue.close();
  }
}
