import { readModelStoreContract } from './contract';
import { MemoryReadModelStore } from './memory';

readModelStoreContract('in-process', async () => new MemoryReadModelStore());
