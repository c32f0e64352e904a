/**
 * Whether `promise` settles within `ms`: for what must end and may instead hang for ever (a close
 * that waits for an event that never comes). The bound only ends a failing test; it is no deadline.
 */
export async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let bound: NodeJS.Timeout | undefined;
  const settled = await Promise.race([
    promise.then(
      () => true,
      () => true,
    ),
    new Promise<boolean>((r) => (bound = setTimeout(() => r(false), ms))),
  ]);
  clearTimeout(bound);
  return settled;
}
