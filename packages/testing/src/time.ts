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

/** Asks `what` every 50 ms until it answers something truthy (that answer), for at most `ms`. */
export async function until<T>(
  what: () => Promise<T | undefined | false> | T | undefined | false,
  ms = 10_000,
): Promise<T> {
  const giveUpAt = Date.now() + ms;
  for (;;) {
    const v = await what();
    if (v) return v;
    if (Date.now() > giveUpAt) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 50));
  }
}
