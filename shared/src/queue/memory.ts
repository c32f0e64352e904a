/**
 * The in-process job queue: the BullMQ contract without Redis, for the embedded default. Jobs live in
 * this process; the event log, not the queue, is what survives a restart (the relay re-enqueues).
 */
import { randomUUID } from 'node:crypto';
import {
  DEFAULT_RETRY,
  backoffDelay,
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

interface Entry<T> {
  job: Job<T>;
  dedupId?: string;
  policy: RetryPolicy;
  readyAt: number;
  error?: string;
}

export class MemoryJobQueue<T> implements JobQueue<T> {
  private readonly ready: Entry<T>[] = [];
  private readonly delayed = new Set<Entry<T>>();
  private readonly failedJobs: Entry<T>[] = [];
  /** Deduplication ids of the jobs held (waiting, delayed or running), and their job's id. */
  private readonly dedup = new Map<string, string>();
  private readonly workers = new Set<() => void>();
  private active = 0;
  private closed = false;

  constructor(
    readonly name: string,
    private readonly defaults: RetryPolicy = DEFAULT_RETRY,
  ) {}

  async enqueue(name: string, data: T, options: EnqueueOptions = {}): Promise<EnqueueResult> {
    const now = Date.now();
    const seen = options.dedup && this.dedup.get(options.dedup.id);
    if (seen) return { jobId: seen, deduplicated: true };
    const id = randomUUID();
    if (options.dedup) this.dedup.set(options.dedup.id, id);
    const entry: Entry<T> = {
      job: { id, name, data, attempt: 1 },
      ...(options.dedup && { dedupId: options.dedup.id }),
      policy: { ...this.defaults, ...options.retry },
      readyAt: now + (options.delayMs ?? 0),
    };
    this.schedule(entry);
    return { jobId: id, deduplicated: false };
  }

  private schedule(entry: Entry<T>): void {
    const wait = entry.readyAt - Date.now();
    if (wait <= 0) {
      this.ready.push(entry);
      this.kick();
      return;
    }
    this.delayed.add(entry);
    setTimeout(() => {
      if (!this.delayed.delete(entry)) return;
      this.ready.push(entry);
      this.kick();
    }, wait).unref();
  }

  private kick(): void {
    for (const wake of this.workers) wake();
  }

  process(handler: (job: Job<T>) => Promise<void>, options: ProcessOptions = {}): Worker {
    const concurrency = options.concurrency ?? 1;
    let inHand = 0;
    let stopping = false;
    const running = new Set<Promise<void>>();
    const pump = () => {
      while (!stopping && !this.closed && inHand < concurrency && this.ready.length > 0) {
        const entry = this.ready.shift()!;
        inHand += 1;
        this.active += 1;
        const run = this.runOne(entry, handler, options.observe).finally(() => {
          inHand -= 1;
          this.active -= 1;
          running.delete(run);
          pump();
        });
        running.add(run);
      }
    };
    this.workers.add(pump);
    queueMicrotask(pump);
    return {
      close: async () => {
        stopping = true;
        this.workers.delete(pump);
        await Promise.all([...running]);
      },
    };
  }

  private async runOne(
    entry: Entry<T>,
    handler: (job: Job<T>) => Promise<void>,
    observe: ProcessOptions['observe'],
  ): Promise<void> {
    try {
      await handler({ ...entry.job });
      this.finished(entry);
    } catch (err) {
      entry.error = err instanceof Error ? err.message : String(err);
      observe?.(failureEvent(this.name, entry.job, entry.policy.attempts, err));
      if (entry.job.attempt >= entry.policy.attempts) {
        this.finished(entry);
        this.failedJobs.unshift(entry);
        return;
      }
      const delay = backoffDelay(entry.policy, entry.job.attempt, Math.random());
      entry.job = { ...entry.job, attempt: entry.job.attempt + 1 };
      entry.readyAt = Date.now() + delay;
      this.schedule(entry);
    }
  }

  /** A job done or failed for good frees its deduplication id (as BullMQ deletes its key). */
  private finished(entry: Entry<T>): void {
    if (entry.dedupId !== undefined && this.dedup.get(entry.dedupId) === entry.job.id) {
      this.dedup.delete(entry.dedupId);
    }
  }

  async failed(limit = 100): Promise<FailedJob<T>[]> {
    return this.failedJobs.slice(0, limit).map((e) => ({
      id: e.job.id,
      name: e.job.name,
      data: e.job.data,
      error: e.error ?? '',
      attempts: e.job.attempt,
    }));
  }

  async retry(jobId: string): Promise<boolean> {
    const i = this.failedJobs.findIndex((e) => e.job.id === jobId);
    if (i < 0) return false;
    const [entry] = this.failedJobs.splice(i, 1);
    entry!.job = { ...entry!.job, attempt: 1 };
    entry!.readyAt = Date.now();
    this.schedule(entry!);
    return true;
  }

  async counts(): Promise<JobCounts> {
    return {
      waiting: this.ready.length,
      active: this.active,
      delayed: this.delayed.size,
      failed: this.failedJobs.length,
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    this.workers.clear();
  }
}
