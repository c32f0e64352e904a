import Redis from 'ioredis';
import { REDIS_URL, uniqueName } from '@tokenops/testing/servers';
import { readModelStoreContract } from './contract';
import { RedisReadModelStore } from './redis';

readModelStoreContract('Redis', async () => RedisReadModelStore.connect(REDIS_URL, uniqueName('rm')));

describe('Redis read models in two namespaces', () => {
  it('do not see each other: a replay can build beside the live models', async () => {
    const live = RedisReadModelStore.connect(REDIS_URL, uniqueName('live'));
    const fresh = RedisReadModelStore.connect(REDIS_URL, uniqueName('fresh'));
    try {
      await live.commit('p', { commit: 1n, prepare: 1n }, [{ op: 'set', key: 'x', value: 'live' }]);
      await fresh.commit('p', { commit: 1n, prepare: 1n }, [{ op: 'set', key: 'x', value: 'fresh' }]);
      await fresh.clear();
      expect(await live.get('x')).toBe('live');
      expect(await fresh.get('x')).toBeUndefined();
      const raw = new Redis(REDIS_URL);
      expect(await raw.get(`${live.namespace}:x`)).toBe('"live"');
      await raw.quit();
    } finally {
      await live.clear();
      await Promise.all([live.close(), fresh.close()]);
    }
  });
});
