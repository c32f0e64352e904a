import Redis from 'ioredis';
import { privateRedis, type PrivateServer } from '@tokenops/testing/private-servers';
import { REDIS_URL, uniqueName } from '@tokenops/testing/servers';
import { settlesWithin } from '@tokenops/testing/time';
import { BullJobQueue } from './bullmq';
import { jobQueueContract } from './contract';
import { setTimeout as sleep } from 'node:timers/promises';

jobQueueContract('BullMQ', async (retry) => {
  const queue = new BullJobQueue<{ n: number }>('test', {
    url: REDIS_URL,
    prefix: uniqueName('bull'),
    retry,
  });
  const close = queue.close.bind(queue);
  // Leave no keys behind in the shared Redis.
  queue.close = async () => {
    await queue.obliterate();
    await close();
  };
  return queue;
});

describe('closing a BullMQ worker', () => {
  let redis: PrivateServer;
  beforeAll(async () => {
    redis = await privateRedis(); // its clients are cut below: not the Redis other suites share
  });
  afterAll(async () => redis?.close());

  it('closes while its blocking connection waits to reconnect (Redis cut it a moment ago)', async () => {
    const queue = new BullJobQueue<{ n: number }>('test', { url: redis.url, prefix: uniqueName('bull') });
    const done: number[] = [];
    const worker = queue.process(async (job) => void done.push(job.data.n));
    await queue.enqueue('x', { n: 1 });
    for (let i = 0; i < 100 && done.length === 0; i++) await sleep(50);
    expect(done).toEqual([1]);

    // Redis drops every connection; ioredis waits BullMQ's retry delay (a second) before it reconnects.
    const admin = new Redis(redis.url);
    await admin.client('KILL', 'TYPE', 'normal', 'SKIPME', 'yes');
    await sleep(100);
    // BullMQ 6.7 alone waits for ever here (taskforcesh/bullmq#4656).
    expect(await settlesWithin(worker.close(), 10_000)).toBe(true);

    await queue.enqueue('x', { n: 2 }); // the queue still works: the job waits for a worker
    expect(await queue.counts()).toMatchObject({ waiting: 1 });
    await queue.obliterate();
    await queue.close();
    admin.disconnect();
  });
});
