import { DependencyUnavailable, WrongExpectedRevision } from '@tokenops/shared';
import { isUnavailable } from './middleware';

describe('isUnavailable: what the error envelope answers 503 (retry later) rather than 500', () => {
  it.each([
    [
      'a dependency an adapter found away',
      new DependencyUnavailable('Redis', new Error('Connection is closed.')),
    ],
    ['a write that kept conflicting', new WrongExpectedRevision('agent-1', 4n, 5n)],
  ])('%s', (_name, err) => expect(isUnavailable(err)).toBe(true));

  it.each([
    // The edge knows no client library's codes: an adapter that let one through is a bug (500).
    ['a raw connection error', Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' })],
    ['a programming error', new TypeError("Cannot read properties of undefined (reading 'x')")],
    ['a non-error', 'boom'],
    ['nothing', undefined],
  ])('not %s', (_name, err) => expect(isUnavailable(err)).toBe(false));
});
