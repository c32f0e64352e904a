import { REDIS_URL, uniqueName } from '@tokenops/testing/servers';
import { BullJobQueue } from './bullmq';
import { jobQueueContract } from './contract';

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
