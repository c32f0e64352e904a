import { DependencyUnavailable, guarded, isConnectionFailure, reaching, unavailableOr } from './unavailable';

describe('connection failures, as the adapters classify them', () => {
  it.each([
    [
      'PostgreSQL refusing connections',
      Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }),
    ],
    [
      'PostgreSQL out of connection slots',
      Object.assign(new Error('sorry, too many clients already'), { code: '53300' }),
    ],
    ['PostgreSQL shutting down', Object.assign(new Error('terminating connection'), { code: '57P01' })],
    [
      'PostgreSQL connection failure class',
      Object.assign(new Error('connection failure'), { code: '08006' }),
    ],
    ['Redis gone', new Error('Connection is closed.')],
    [
      'ioredis out of retries',
      Object.assign(new Error('Reached the max retries per request limit'), {
        name: 'MaxRetriesPerRequestError',
      }),
    ],
    ['a JSON-RPC node away', new Error('failed to get info about account X: TypeError: fetch failed')],
    [
      'a failure whose cause is one',
      new Error('wrapped', { cause: Object.assign(new Error('x'), { code: 'ECONNRESET' }) }),
    ],
  ])('%s', (_name, err) => {
    expect(isConnectionFailure(err)).toBe(true);
    expect(unavailableOr('it', err)).toBeInstanceOf(DependencyUnavailable);
  });

  it.each([
    ['a refused statement', Object.assign(new Error('duplicate key'), { code: '23505' })],
    ['a programming error', new TypeError("Cannot read properties of undefined (reading 'x')")],
    ['a non-error', 'boom'],
  ])('not %s: it stays as it is', (_name, err) => {
    expect(isConnectionFailure(err)).toBe(false);
    expect(unavailableOr('it', err)).toBe(err);
  });

  it('a guarded client raises DependencyUnavailable from any method, other errors untouched', async () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    const bug = new TypeError('bug');
    const client = guarded('Redis', {
      value: 7,
      get: async () => Promise.reject(refused),
      set: async () => Promise.reject(bug),
      now: () => 1,
    });
    expect(client.value).toBe(7);
    expect(client.now()).toBe(1);
    await expect(client.get()).rejects.toEqual(
      expect.objectContaining({ name: 'DependencyUnavailable', dependency: 'Redis' }),
    );
    await expect(client.set()).rejects.toBe(bug);
    await expect(reaching('PostgreSQL', () => Promise.reject(refused))).rejects.toBeInstanceOf(
      DependencyUnavailable,
    );
  });
});
