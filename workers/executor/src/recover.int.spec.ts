/**
 * Jobs that ran out of attempts while the chain did not answer run again once it answers
 * (recover.ts): BullMQ on the real Redis, the chain node on loopback, stopped and started again.
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
    expect(await recovery.pass()).toEqual({ waiting: 1, retried: 0 });
    expect(counts).toEqual([1]);

    node = await serveChainRpc(backend.node(), { port }); // it answers again
    expect(await recovery.pass()).toEqual({ waiting: 1, retried: 1 });
    expect(await until(10_000, async () => done.includes(1))).toBe(true);
    expect(counts).toEqual([1, 1, 0]);
    // The job that died of something else is left to the operator.
    expect((await queue.failed()).map((j) => j.data.n)).toEqual([2]);
    expect(await recovery.pass()).toEqual({ waiting: 0, retried: 0 });
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
