/** The job queue's contract, run against every adapter. Timings are lower bounds only (a noisy machine). */
import { waitFor } from '../event-store/contract';
import { backoffDelay, type Job, type JobEvent, type JobQueue, type RetryPolicy } from './port';

interface Payload {
  n: number;
}

export function jobQueueContract(
  name: string,
  open: (retry: RetryPolicy) => Promise<JobQueue<Payload>>,
): void {
  describe(`job queue contract: ${name}`, () => {
    const retry: RetryPolicy = { attempts: 3, backoffMs: 40, jitter: 0.5 };
    let queue: JobQueue<Payload>;
    beforeEach(async () => {
      queue = await open(retry);
    });
    afterEach(async () => {
      await queue.close();
    });

    it('delivers a job with its data', async () => {
      const seen: Job<Payload>[] = [];
      const worker = queue.process(async (job) => void seen.push(job));
      await queue.enqueue('transfer', { n: 7 });
      await waitFor(() => seen.length === 1);
      await worker.close();
      expect(seen[0]).toEqual(expect.objectContaining({ name: 'transfer', data: { n: 7 }, attempt: 1 }));
    });

    it('adds a job once per deduplication id while one waits or runs', async () => {
      const seen: number[] = [];
      const first = await queue.enqueue('x', { n: 1 }, { dedup: { id: 'intent-1' }, delayMs: 150 });
      const again = await queue.enqueue('x', { n: 2 }, { dedup: { id: 'intent-1' } });
      const other = await queue.enqueue('x', { n: 3 }, { dedup: { id: 'intent-2' } });
      let release!: () => void;
      const running = new Promise<void>((r) => (release = r));
      const worker = queue.process(
        async (job) => {
          seen.push(job.data.n);
          if (job.data.n === 1) await running;
        },
        { concurrency: 2 },
      );
      await waitFor(() => seen.length === 2);
      const whileRunning = await queue.enqueue('x', { n: 4 }, { dedup: { id: 'intent-1' } });
      release();
      await new Promise((r) => setTimeout(r, 100));
      await worker.close();
      expect(first.deduplicated).toBe(false);
      expect(again).toEqual({ jobId: first.jobId, deduplicated: true });
      expect(other.deduplicated).toBe(false);
      expect(whileRunning).toEqual({ jobId: first.jobId, deduplicated: true });
      expect(seen.sort()).toEqual([1, 3]);
    });

    it('frees a deduplication id once its job finished, done or failed for good', async () => {
      const seen: number[] = [];
      const worker = queue.process(async (job) => {
        seen.push(job.data.n);
        if (job.data.n === 2) throw new Error('no');
      });
      await queue.enqueue('x', { n: 1 }, { dedup: { id: 'intent-1' } });
      await waitFor(() => seen.length === 1);
      await new Promise((r) => setTimeout(r, 50));
      const afterDone = await queue.enqueue(
        'x',
        { n: 2 },
        { dedup: { id: 'intent-1' }, retry: { attempts: 1 } },
      );
      await waitFor(async () => (await queue.failed()).length === 1);
      const afterFailed = await queue.enqueue('x', { n: 3 }, { dedup: { id: 'intent-1' } });
      await waitFor(() => seen.length === 3);
      await worker.close();
      expect(afterDone.deduplicated).toBe(false);
      expect(afterFailed.deduplicated).toBe(false);
      expect(seen).toEqual([1, 2, 3]);
    });

    it('retries a failing job with growing delays, then succeeds', async () => {
      const runs: { attempt: number; at: number }[] = [];
      const worker = queue.process(async (job) => {
        runs.push({ attempt: job.attempt, at: Date.now() });
        if (job.attempt < 3) throw new Error(`flaky ${job.attempt}`);
      });
      await queue.enqueue('x', { n: 1 });
      await waitFor(() => runs.length === 3);
      await worker.close();
      expect(runs.map((r) => r.attempt)).toEqual([1, 2, 3]);
      // Each wait is at least the un-jittered part of its exponential delay.
      expect(runs[1]!.at - runs[0]!.at).toBeGreaterThanOrEqual(backoffDelay(retry, 1, 0) - 5);
      expect(runs[2]!.at - runs[1]!.at).toBeGreaterThanOrEqual(backoffDelay(retry, 2, 0) - 5);
      expect(await queue.failed()).toEqual([]);
    });

    it('keeps a job that used up its attempts in the failed set, where an operator can retry it', async () => {
      let healthy = false;
      const done: number[] = [];
      const told: JobEvent[] = [];
      const worker = queue.process(
        async (job) => {
          if (!healthy) throw new Error('chain unavailable');
          done.push(job.data.n);
        },
        { observe: (e) => void told.push(e) },
      );
      const { jobId } = await queue.enqueue('x', { n: 42 });
      let failed = await queue.failed();
      for (let i = 0; i < 200 && failed.length === 0; i++) {
        await new Promise((r) => setTimeout(r, 25));
        failed = await queue.failed();
      }
      expect(failed).toEqual([
        { id: jobId, name: 'x', data: { n: 42 }, error: 'chain unavailable', attempts: 3 },
      ]);
      expect((await queue.counts()).failed).toBe(1);
      // Each failed run was told: two retries, then dead.
      const each = { queue: queue.name, jobId, name: 'x', attempts: 3, error: 'chain unavailable' };
      expect(told).toEqual([
        { ...each, fate: 'retry', attempt: 1 },
        { ...each, fate: 'retry', attempt: 2 },
        { ...each, fate: 'dead', attempt: 3 },
      ]);
      healthy = true;
      // Retried from several places at once (every executor's recovery): put back once, and the
      // others are told it is no longer there; so is a retry of a job that was never failed.
      const answers = await Promise.all([queue.retry(jobId), queue.retry(jobId), queue.retry(jobId)]);
      expect(answers.sort()).toEqual([false, false, true]);
      expect(await queue.retry('no-such-job')).toBe(false);
      await waitFor(() => done.length === 1);
      await new Promise((r) => setTimeout(r, 100));
      await worker.close();
      expect(done).toEqual([42]);
      expect(await queue.failed()).toEqual([]);
      expect(await queue.retry(jobId)).toBe(false); // done: not in the failed set
    });

    it('runs up to `concurrency` jobs at once', async () => {
      let inFlight = 0;
      let peak = 0;
      let finished = 0;
      const worker = queue.process(
        async () => {
          inFlight += 1;
          peak = Math.max(peak, inFlight);
          await new Promise((r) => setTimeout(r, 60));
          inFlight -= 1;
          finished += 1;
        },
        { concurrency: 4 },
      );
      for (let i = 0; i < 12; i++) await queue.enqueue('x', { n: i });
      await waitFor(() => finished === 12);
      await worker.close();
      expect(peak).toBe(4);
    });

    it('holds a delayed job until its time', async () => {
      const ran: number[] = [];
      const worker = queue.process(async () => void ran.push(Date.now()));
      const start = Date.now();
      await queue.enqueue('x', { n: 1 }, { delayMs: 200 });
      expect((await queue.counts()).delayed).toBe(1);
      await waitFor(() => ran.length === 1);
      await worker.close();
      expect(ran[0]! - start).toBeGreaterThanOrEqual(195);
    });
  });
}
