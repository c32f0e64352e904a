import { collectAppends, reportingAppends } from './appends';
import type { AppendResult, EventStore, LogPosition } from './port';

/** A store whose n-th append lands at (n, 0), answering after `delays[n]` ms: out of order on purpose. */
function fakeLog(delays: number[]): EventStore {
  let n = 0;
  const none = () => Promise.reject(new Error('not used'));
  return {
    append: () => {
      const at = ++n;
      return new Promise<AppendResult>((r) =>
        setTimeout(
          () => r({ nextRevision: 0n, position: { commit: BigInt(at), prepare: 0n } }),
          delays[at - 1],
        ),
      );
    },
    readStream: none,
    readAll: none,
    headPosition: none,
    subscribeToAll: () => {
      throw new Error('not used');
    },
    close: () => Promise.resolve(),
  };
}

const at = (commit: number): LogPosition => ({ commit: BigInt(commit), prepare: 0n });

describe('collectAppends', () => {
  it('knows the last position the work appended at, through awaits and parallel appends', async () => {
    const store = reportingAppends(fakeLog([20, 5, 1]));
    const { result, last } = await collectAppends(async () => {
      await Promise.all([store.append('a', [], 'any'), store.append('b', [], 'any')]);
      return 'done';
    });
    expect(result).toBe('done');
    expect(last).toEqual(at(2));
  });

  it('keeps scopes apart: work running at the same time, and appends outside any scope', async () => {
    const store = reportingAppends(fakeLog([10, 1, 1, 1]));
    const [one, two] = await Promise.all([
      collectAppends(() => store.append('a', [], 'any')),
      collectAppends(async () => {
        await store.append('b', [], 'any');
        return store.append('c', [], 'any');
      }),
      store.append('d', [], 'any'),
    ]);
    expect(one.last).toEqual(at(1));
    expect(two.last).toEqual(at(4));
    expect((await collectAppends(async () => 'nothing')).last).toBeUndefined();
  });
});
