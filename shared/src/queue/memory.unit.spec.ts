import { jobQueueContract } from './contract';
import { MemoryJobQueue } from './memory';

jobQueueContract('in-process', async (retry) => new MemoryJobQueue('test', retry));
