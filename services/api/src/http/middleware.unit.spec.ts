import { WrongExpectedRevision } from '@tokenops/shared';
import { isUnavailable } from './middleware';

describe('isUnavailable: what the error envelope answers 503 (retry later) rather than 500', () => {
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
    ['Redis gone', new Error('Connection is closed.')],
    ['a write that kept conflicting', new WrongExpectedRevision('agent-1', 4n, 5n)],
  ])('%s', (_name, err) => expect(isUnavailable(err)).toBe(true));

  it.each([
    ['a programming error', new TypeError("Cannot read properties of undefined (reading 'x')")],
    ['a non-error', 'boom'],
    ['nothing', undefined],
  ])('not %s', (_name, err) => expect(isUnavailable(err)).toBe(false));
});
