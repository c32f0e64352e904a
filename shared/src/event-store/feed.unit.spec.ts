import { LiveFeed } from './feed';
import type { RecordedEvent } from './port';

const at = (commit: number, prepare: number): RecordedEvent => ({
  id: `${commit}/${prepare}`,
  type: 't',
  stream: 's',
  revision: 0n,
  position: { commit: BigInt(commit), prepare: BigInt(prepare) },
  data: {},
  metadata: { timestamp: '2026-11-27T00:00:00.000Z' },
});
const ids = (events: RecordedEvent[]) => events.map((e) => e.id);

describe('the live feed', () => {
  it('hands appends on in the order they were sent, whichever answer comes first', async () => {
    const feed = new LiveFeed();
    const tap = feed.tap(10);
    const first = feed.send();
    const second = feed.send();
    const third = feed.send();
    feed.committed(third, [at(3, 5)]);
    feed.committed(second, [at(2, 3), at(2, 4)]);
    expect(tap.ended).toBeUndefined();
    feed.committed(first, [at(1, 1)]);
    expect(ids(await tap.take())).toEqual(['1/1', '2/3', '2/4', '3/5']);
  });

  it('hands nothing on for a failed append, and goes on with the next', async () => {
    const feed = new LiveFeed();
    const tap = feed.tap(10);
    const failed = feed.send();
    const next = feed.send();
    feed.committed(next, [at(2, 2)]);
    feed.committed(failed, []);
    expect(ids(await tap.take())).toEqual(['2/2']);
  });

  it('gives a tap only what is handed on after it was taken', async () => {
    const feed = new LiveFeed();
    feed.committed(feed.send(), [at(1, 1)]);
    const tap = feed.tap(10);
    feed.committed(feed.send(), [at(2, 2)]);
    expect(ids(await tap.take())).toEqual(['2/2']);
  });

  it('waits for the next event when there is none', async () => {
    const feed = new LiveFeed();
    const tap = feed.tap(10);
    const taken = tap.take();
    feed.committed(feed.send(), [at(1, 1)]);
    expect(ids(await taken)).toEqual(['1/1']);
  });

  it('drops the tap of a subscriber that falls behind by more than its limit, keeping nothing', async () => {
    const feed = new LiveFeed();
    const tap = feed.tap(2);
    feed.committed(feed.send(), [at(1, 1), at(1, 2)]);
    expect(tap.ended).toBeUndefined();
    feed.committed(feed.send(), [at(2, 3)]);
    expect(tap.ended).toBe('behind');
    expect(await tap.take()).toEqual([]);
    // The others keep receiving.
    const other = feed.tap(2);
    feed.committed(feed.send(), [at(3, 4)]);
    expect(ids(await other.take())).toEqual(['3/4']);
  });

  it('fails every tap when an event does not come after the last (another writer), and those taken later', async () => {
    const feed = new LiveFeed();
    const tap = feed.tap(10);
    feed.committed(feed.send(), [at(2, 2)]);
    feed.committed(feed.send(), [at(1, 1)]);
    expect(tap.ended).toBeInstanceOf(Error);
    expect(String(tap.ended)).toMatch(/another process writes to it/);
    expect(feed.tap(10).ended).toBeInstanceOf(Error);
  });

  it('ends a waiting take when its tap is closed, and every tap when the feed closes', async () => {
    const feed = new LiveFeed();
    const one = feed.tap(10);
    const taken = one.take();
    one.finish('closed');
    expect(await taken).toEqual([]);
    const two = feed.tap(10);
    feed.close();
    expect(two.ended).toBe('closed');
    expect(feed.tap(10).ended).toBe('closed');
  });
});
