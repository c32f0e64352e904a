/**
 * Jobs that ran out of attempts while the chain did not answer run again once it answers
 * (recover.ts): BullMQ on the real Redis, the chain node on loopback, stopped and started again; and
 * two executors' recovery passes over the same few hundred dead jobs at once.
 */
import { generateSigner } from '@tokenops/shared';
import { BullJobQueue, LiteSvmChain, RpcChain, serveChainRpc } from '@tokenops/shared/adapters';
import { REDIS_URL, uniqueName } from '@tokenops/testing/servers';
import { recoverChainWaits } from './recover';

const seed = 'recover-chain-waits';

async function until(ms: number, ok: () => Promise<boolean>): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!(await ok())) {
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 50));
  }
  return true;
}

it('puts back the jobs that died while the chain was away once it answers, and no other', async () => {
  const backend = await LiteSvmChain.open({ seed });
  let node = await serveChainRpc(backend.node(), { port: 0 });
  const port = Number(new URL(node.url).port);
  const chain = RpcChain.local(node.url, seed);
  const queue = new BullJobQueue<{ n: number }>('execute', {
    url: REDIS_URL,
    prefix: uniqueName('recover'),
    retry: { attempts: 2, backoffMs: 50, jitter: 0 },
  });
  const owner = generateSigner().address;
  const done: number[] = [];
  const worker = queue.process(async (job) => {
    if (job.data.n === 2) throw new Error('a bug, not the chain');
    await chain.tokenAccount(owner, chain.tokens[0]!.mint); // asks the chain
    done.push(job.data.n);
  });
  const counts: number[] = [];
  const recovery = recoverChainWaits(queue, {
    intervalMs: 3_600_000, // passes are run by hand below
    chainAnswers: () => chain.health(1_000),
    onWaiting: (n) => counts.push(n),
  });
  try {
    await node.close(); // the chain goes away
    await queue.enqueue('execute', { n: 1 });
    await queue.enqueue('execute', { n: 2 });
    expect(await until(10_000, async () => (await queue.failed()).length === 2)).toBe(true);

    // Away still: counted, not put back.
    expect(await recovery.pass()).toEqual({ waiting: 1, retried: 0, movedOn: 0 });
    expect(counts).toEqual([1]);

    node = await serveChainRpc(backend.node(), { port }); // it answers again
    expect(await recovery.pass()).toEqual({ waiting: 1, retried: 1, movedOn: 0 });
    expect(await until(10_000, async () => done.includes(1))).toBe(true);
    expect(counts).toEqual([1, 1, 0]);
    // The job that died of something else is left to the operator.
    expect((await queue.failed()).map((j) => j.data.n)).toEqual([2]);
    expect(await recovery.pass()).toEqual({ waiting: 0, retried: 0, movedOn: 0 });
  } finally {
    recovery.stop();
    await worker.close();
    await queue.obliterate();
    await queue.close();
    await chain.close();
    await node.close();
    await backend.close();
  }
}, 30_000);

it('two executors’ passes over a few hundred dead jobs at once: each job put back exactly once, no pass failing', async () => {
  const JOBS = 300;
  const backend = await LiteSvmChain.open({ seed });
  let node = await serveChainRpc(backend.node(), { port: 0 });
  const port = Number(new URL(node.url).port);
  const chain = RpcChain.local(node.url, seed);
  const prefix = uniqueName('recover');
  let putting = 0;
  // The first executor, having put its first job back, waits until the second reads the failed set:
  // the two passes overlap on every run, however fast the first would be alone.
  let secondRead!: () => void;
  const secondReading = new Promise<void>((resolve) => (secondRead = resolve));
  // Two executors: each its own queue client (connections) on the same queue, a worker and a recovery.
  const executors = [0, 1].map((i) => {
    const queue = new BullJobQueue<{ n: number }>('execute', {
      url: REDIS_URL,
      prefix,
      retry: { attempts: 1, backoffMs: 50, jitter: 0 },
    });
    const retried: string[] = [];
    const errors: unknown[] = [];
    // The queue as the recovery sees it, telling the test when it puts a job back.
    const view = {
      failed: async (limit?: number) => {
        const failed = await queue.failed(limit);
        if (i === 1) secondRead();
        return failed;
      },
      retry: async (id: string) => {
        const back = await queue.retry(id);
        if (back && ++putting === 1 && i === 0) await secondReading;
        return back;
      },
    };
    const recovery = recoverChainWaits(view, {
      intervalMs: 3_600_000, // passes are run by hand below, back to back
      chainAnswers: () => chain.health(1_000),
      onRetried: (ids) => retried.push(...ids),
    });
    return { queue, retried, errors, recovery };
  });
  const owner = generateSigner().address;
  const ran = new Map<number, number>();
  const workers = executors.map(({ queue }) =>
    queue.process(
      async (job) => {
        await chain.tokenAccount(owner, chain.tokens[0]!.mint); // asks the chain
        ran.set(job.data.n, (ran.get(job.data.n) ?? 0) + 1);
      },
      { concurrency: 16 },
    ),
  );
  const [first] = executors;
  try {
    await node.close(); // the chain goes away: every job dies at its one attempt
    const ids = new Set<string>();
    for (let n = 0; n < JOBS; n++) ids.add((await first!.queue.enqueue('execute', { n })).jobId);
    expect(await until(30_000, async () => (await first!.queue.counts()).failed === JOBS)).toBe(true);

    node = await serveChainRpc(backend.node(), { port }); // it answers again
    // The first executor's pass begins; the second's begins once the first is putting jobs back, so
    // it reads the failed set while they leave it (their timers do that on a cluster). Then each runs
    // its passes back to back until the failed set is empty.
    const passes = await Promise.all(
      executors.map(async ({ queue, recovery, errors }, i) => {
        if (i === 1) await until(10_000, async () => putting > 0);
        const results: { waiting: number; retried: number; movedOn: number }[] = [];
        const deadline = Date.now() + 30_000;
        // One pass at least (the second's read lets the first go on), then until the failed set is empty.
        do
          results.push(
            await recovery
              .pass()
              .catch((err: unknown) => (errors.push(err), { waiting: -1, retried: 0, movedOn: 0 })),
          );
        while ((await queue.counts()).failed > 0 && Date.now() < deadline);
        return results;
      }),
    );
    expect(executors.map((e) => e.errors.map(String))).toEqual([[], []]);
    const putBack = executors.flatMap((e) => e.retried);
    expect(putBack).toHaveLength(JOBS); // each once: no job put back twice ...
    expect(new Set(putBack)).toEqual(ids); // ... and none left out
    // Both took part: each executor put some back, or found them moved on.
    for (const results of passes) expect(results.length).toBeGreaterThan(0);
    expect(await until(30_000, async () => ran.size === JOBS)).toBe(true);
    await new Promise((r) => setTimeout(r, 200));
    expect([...ran.values()].every((runs) => runs === 1)).toBe(true); // each job ran once after its death
    expect(await first!.queue.failed()).toEqual([]);
  } finally {
    for (const { recovery } of executors) recovery.stop();
    await Promise.all(workers.map((w) => w.close()));
    await first!.queue.obliterate();
    await Promise.all(executors.map(({ queue }) => queue.close()));
    await chain.close();
    await node.close();
    await backend.close();
  }
}, 90_000);
