import { ServiceError, type ErrorCode } from '@tokenops/shared';

/** The code of the ServiceError `fn` throws, or 'ok' when it returns. Anything else is rethrown. */
export function codeOf(fn: () => unknown): ErrorCode | 'ok' {
  try {
    fn();
    return 'ok';
  } catch (err) {
    if (err instanceof ServiceError) return err.code;
    throw err;
  }
}

/** The ServiceError `fn` throws; fails the test when it throws none. */
export function thrownBy(fn: () => unknown): ServiceError {
  try {
    fn();
  } catch (err) {
    if (err instanceof ServiceError) return err;
    throw err;
  }
  throw new Error('expected a ServiceError');
}
