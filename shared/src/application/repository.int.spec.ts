/**
 * The repository under parallel decisions on one stream, on the real PostgreSQL store: two
 * repositories stand for two API instances sharing the log.
 */
import { PostgresEventStore } from '../event-store/postgres';
import { WrongExpectedRevision, type EventStore } from '../event-store/port';
import { serverSql } from '../sql/sql';
import { DATABASE_URL, dropSchema, uniqueName } from '@tokenops/testing/servers';
import { Repository, appendTogether } from './repository';

type Counted = { type: 'counted'; data: { by: string; n: number } };
let conflicts = 0;
/** A repository over `store` that counts the version conflicts its appends meet. */
const counter = (store: EventStore) =>
  new Repository<number, Counted>(
    new Proxy(store, {
      get: (target, name) =>
        name === 'append'
          ? (...args: Parameters<EventStore['append']>) =>
              target.append(...args).catch((err: unknown) => {
                if (err instanceof WrongExpectedRevision) conflicts++;
                throw err;
              })
          : (target[name as keyof EventStore] as unknown),
    }),
    { initialState: () => 0, evolve: (n) => n + 1 },
  );

const schema = uniqueName('repo');
const open = async () => PostgresEventStore.open(await serverSql({ connectionString: DATABASE_URL, schema }));
// Two stores, as two API instances have: each its own pool and its own group commit.
let store: PostgresEventStore;
let other: PostgresEventStore;
beforeAll(async () => {
  store = await open();
  other = await open();
});
afterAll(async () => {
  await Promise.all([store.close(), other.close()]);
  await dropSchema(schema);
});

describe('Repository.handle under 200 parallel decisions on one stream from two instances', () => {
  it('takes every decision once, each on the state the one before left', async () => {
    conflicts = 0;
    const a = counter(store);
    const b = counter(other);
    // In a process the decisions queue, so only the other instance conflicts.
    const decide = (by: string) => (n: number) => ({
      events: [{ type: 'counted' as const, data: { by, n } }],
      result: n,
    });
    const seen = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        i % 2 ? a.handle('counter-1', decide('a')) : b.handle('counter-1', decide('b')),
      ),
    );
    expect(new Set(seen).size).toBe(200);
    // Racing each other, 100 decisions per instance would meet thousands of conflicts; queued, each
    // meets about one (the other instance's head).
    expect(conflicts).toBeLessThan(400);
    const events = await store.readStream('counter-1');
    expect(events.map((e) => (e.data as Counted['data']).n)).toEqual(
      Array.from({ length: 200 }, (_, i) => i),
    );
  });

  it('still detects a conflict: an append at a stale revision is refused, not applied', async () => {
    const a = counter(store);
    const b = counter(other);
    const stale = await a.load('counter-2');
    await b.handle('counter-2', () => ({
      events: [{ type: 'counted', data: { by: 'b', n: 0 } }],
      result: 0,
    }));
    await expect(
      a.append('counter-2', stale, [{ type: 'counted', data: { by: 'a', n: 0 } }]),
    ).rejects.toBeInstanceOf(WrongExpectedRevision);
    expect(await store.readStream('counter-2')).toHaveLength(1);
  });

  it('a single writer whose cache went stale (another process appended) recovers on the retry', async () => {
    const single = new Repository<number, Counted>(
      store,
      { initialState: () => 0, evolve: (n) => n + 1 },
      100,
      true,
    );
    const count = (by: string) => (n: number) => ({
      events: [{ type: 'counted' as const, data: { by, n } }],
      result: n,
    });
    await single.handle('counter-3', count('single'));
    await counter(other).handle('counter-3', count('other'));
    expect(await single.handle('counter-3', count('single'))).toBe(2);
    expect((await store.readStream('counter-3')).map((e) => (e.data as Counted['data']).n)).toEqual([
      0, 1, 2,
    ]);
  });

  it('a refusal made on a stale cache is decided again on the stored state (another instance appended what makes it valid)', async () => {
    const a = counter(store);
    const b = counter(other);
    const count = (by: string) => (n: number) => ({
      events: [{ type: 'counted' as const, data: { by, n } }],
      result: n,
    });
    /** Valid only once the stream holds two events: refused before. */
    const second = (n: number) => {
      if (n < 2) throw new Error(`refused at ${n}`);
      return count('a')(n);
    };
    await a.handle('counter-stale', count('a')); // a's cache: one event
    await b.handle('counter-stale', count('b')); // the stream: two, which a has not seen
    expect(await a.handle('counter-stale', second)).toBe(2);
    // On the stored state, a refusal stands.
    await expect(a.handle('counter-fresh', second)).rejects.toThrow('refused at 0');
  });
});

describe('Repository.load knows where its stream last wrote (what a read of the views must include)', () => {
  it('the last event in the log, whichever instance appended it; none for an empty stream', async () => {
    const a = counter(store);
    const b = counter(other);
    expect((await a.load('counter-4')).last).toBeUndefined();
    const count = (n: number) => ({
      events: [{ type: 'counted' as const, data: { by: 'b', n } }],
      result: n,
    });
    await b.handle('counter-4', count);
    expect((await a.load('counter-4')).last?.position).toEqual(
      (await store.readStream('counter-4'))[0]!.position,
    );
    // Appended by the other instance after `a` cached the stream: `a` reads it from the log.
    await b.handle('counter-4', count);
    const [, second] = await store.readStream('counter-4');
    const loaded = await a.load('counter-4');
    expect(loaded.last?.position).toEqual(second!.position);
    expect(loaded.last?.at).toBe(Date.parse(second!.metadata.timestamp));
    // Its own append: the append's position, and nothing new to read after it.
    const mine = await a.append('counter-4', loaded, [{ type: 'counted', data: { by: 'a', n: 2 } }]);
    const third = (await store.readStream('counter-4'))[2]!;
    expect(mine.last?.position).toEqual(third.position);
    expect((await a.load('counter-4')).last?.position).toEqual(third.position);
  });
});

describe('appendTogether: what two repositories staged, in one atomic append', () => {
  const fold = { initialState: () => 0, evolve: (n: number) => n + 1 };
  const event = (by: string, n: number): Counted => ({ type: 'counted', data: { by, n } });

  it('lands both and moves both caches; a conflict on either lands neither and drops only that cache', async () => {
    // Single writers, as the embedded default's: they trust their caches.
    const budgets = new Repository<number, Counted>(store, fold, 100, true);
    const agents = new Repository<number, Counted>(store, fold, 100, true);
    const [budget, agent] = ['together-budget', 'together-agent'];
    await appendTogether(store, [
      budgets.stage(budget, await budgets.load(budget), [event('reserve', 0)]),
      agents.stage(agent, await agents.load(agent), [event('accept', 0)]),
    ]);
    expect(budgets.peek(budget)).toMatchObject({ state: 1, revision: 0n });
    expect(agents.peek(agent)).toMatchObject({ state: 1, revision: 0n });

    // Another process appends to the budget: the single writer's cached budget is now stale.
    await counter(other).handle(budget, (n) => ({ events: [event('elsewhere', n)], result: n }));
    const err = await appendTogether(store, [
      budgets.stage(budget, budgets.peek(budget), [event('reserve', 1)]),
      agents.stage(agent, agents.peek(agent), [event('accept', 1)]),
    ]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WrongExpectedRevision);
    expect((err as WrongExpectedRevision).stream).toBe(budget);
    expect((await store.readStream(agent)).map((e) => (e.data as Counted['data']).by)).toEqual(['accept']);
    expect((await store.readStream(budget)).map((e) => (e.data as Counted['data']).by)).toEqual([
      'reserve',
      'elsewhere',
    ]);
    // The budget's cache is gone (the next load reads the log); the agent's still holds.
    expect(budgets.peek(budget).revision).toBe('no_stream');
    expect(agents.peek(agent)).toMatchObject({ state: 1, revision: 0n });
    await appendTogether(store, [
      budgets.stage(budget, await budgets.load(budget), [event('reserve', 2)]),
      agents.stage(agent, agents.peek(agent), [event('accept', 1)]),
    ]);
    expect(budgets.peek(budget)).toMatchObject({ state: 3, revision: 2n });
    expect(agents.peek(agent)).toMatchObject({ state: 2, revision: 1n });
  });

  it('appends only the staged appends that hold events', async () => {
    const agents = new Repository<number, Counted>(store, fold);
    const budgets = new Repository<number, Counted>(store, fold);
    await appendTogether(store, [
      budgets.stage('together-empty', await budgets.load('together-empty'), []),
      agents.stage('together-one', await agents.load('together-one'), [event('accept', 0)]),
    ]);
    expect(await store.readStream('together-empty')).toEqual([]);
    expect(await store.readStream('together-one')).toHaveLength(1);
  });
});
