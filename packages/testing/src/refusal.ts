import { TokenOpsError } from '@tokenops/client';

/** What the promise rejects with (a TokenOpsError, or the test fails). */
export async function refusal(p: Promise<unknown>): Promise<TokenOpsError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(TokenOpsError);
  return err as TokenOpsError;
}
