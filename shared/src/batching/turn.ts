/**
 * Requests made in one turn of the event loop, sent together once it ends: a driver that would make a
 * round trip per request makes one for all of the turn's (the stream reads of an API instance's
 * spends, the funds checks of an executor's jobs). Each caller gets its own result; when the batch
 * fails, every caller in it gets the failure, as each would have alone.
 */
export function gatherTurn<T, R>(send: (batch: T[]) => Promise<readonly R[]>): (item: T) => Promise<R> {
  let pending: { item: T; resolve(result: R): void; reject(err: unknown): void }[] = [];
  const flush = async (): Promise<void> => {
    const batch = pending;
    pending = [];
    try {
      const results = await send(batch.map((p) => p.item));
      if (results.length !== batch.length)
        throw new Error(`a batch of ${batch.length} answered ${results.length} results`);
      batch.forEach((p, i) => p.resolve(results[i]!));
    } catch (err) {
      for (const p of batch) p.reject(err);
    }
  };
  return (item) =>
    new Promise<R>((resolve, reject) => {
      if (pending.push({ item, resolve, reject }) === 1) setImmediate(() => void flush());
    });
}
