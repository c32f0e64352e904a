/**
 * Where a piece of work appended to the log: a store wrapped by `reportingAppends` tells the
 * innermost `collectAppends` scope (AsyncLocalStorage) of every append made within it, whichever
 * repository or helper made it. The API answers an operator's write once the read views include
 * what it appended (services/api/src/state/freshness.ts). The log's head read after the write would
 * not do: on PostgreSQL it leaves out a transaction that committed while an older one is in flight.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { comparePositions, decorate, type EventStore, type LogPosition } from './port';

const scope = new AsyncLocalStorage<{ last?: LogPosition }>();

/** The store, whose appends report their log position to the `collectAppends` scope they run in. */
export function reportingAppends(store: EventStore): EventStore {
  const atomically = store.appendAtomically?.bind(store);
  return decorate(store, {
    append: async (stream, events, expected) => {
      const result = await store.append(stream, events, expected);
      report(result.position);
      return result;
    },
    ...(atomically && {
      appendAtomically: async (appends) => {
        const results = await atomically(appends);
        for (const result of results) report(result.position);
        return results;
      },
    }),
  });
}

function report(position: LogPosition): void {
  const seen = scope.getStore();
  if (seen && (!seen.last || comparePositions(position, seen.last) > 0)) seen.last = position;
}

/** Runs `work`; its result, and the position of the last event it appended (none when it appended nothing). */
export async function collectAppends<R>(work: () => Promise<R>): Promise<{ result: R; last?: LogPosition }> {
  const seen: { last?: LogPosition } = {};
  const result = await scope.run(seen, work);
  return { result, ...(seen.last && { last: seen.last }) };
}
