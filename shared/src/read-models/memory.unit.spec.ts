import { readModelStoreContract } from './contract';
import { MemoryReadModelStore } from './memory';

readModelStoreContract('in-process', async () => new MemoryReadModelStore());
readModelStoreContract('in-process, documents frozen', async () => new MemoryReadModelStore('rm', 'frozen'));

describe('in-process documents kept frozen', () => {
  it('reads back a copy of what was written, which no reader can change', async () => {
    const store = new MemoryReadModelStore('rm', 'frozen');
    const written = { limits: { daily_limit: '5' }, tags: ['a'] };
    await store.commit('p', { commit: 1n, prepare: 1n }, [{ op: 'set', key: 'agent', value: written }]);
    written.limits.daily_limit = '6'; // the writer's object is not the stored one
    const read = await store.get<typeof written>('agent');
    expect(read).toEqual({ limits: { daily_limit: '5' }, tags: ['a'] });
    expect(() => {
      read!.limits.daily_limit = '7';
    }).toThrow(TypeError);
    expect(() => read!.tags.push('b')).toThrow(TypeError);
    expect(await store.get('agent')).toEqual({ limits: { daily_limit: '5' }, tags: ['a'] });
    expect((await store.dump()).get('agent')).toBe('{"limits":{"daily_limit":"5"},"tags":["a"]}');
  });
});

describe('in-process documents kept shared (a replay building in memory)', () => {
  it('reads back the very object written, without a copy', async () => {
    const store = new MemoryReadModelStore('rm', 'shared');
    const written = { limits: { daily_limit: '5' } };
    await store.commit('p', { commit: 1n, prepare: 1n }, [{ op: 'set', key: 'agent', value: written }]);
    expect(await store.get('agent')).toBe(written);
    expect(Object.isFrozen(written)).toBe(false);
    expect((await store.dump()).get('agent')).toBe('{"limits":{"daily_limit":"5"}}');
  });
});
