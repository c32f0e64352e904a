/**
 * The log read in pages, in log order, with the next page already on its way while the caller works
 * on the current one: a reader that hashes, filters or writes each event (audit verify, the audit
 * export) waits for the database only when it is faster than the database.
 */
import { LOG_START, type EventStore, type LogPosition, type RecordedEvent } from './port';

export async function* logPages(
  store: EventStore,
  options: { from?: LogPosition; pageSize?: number } = {},
): AsyncGenerator<RecordedEvent[]> {
  const pageSize = options.pageSize ?? 2_000;
  let next = store.readAll({ from: options.from ?? LOG_START, maxCount: pageSize });
  try {
    for (;;) {
      const page = await next;
      const full = page.length === pageSize;
      if (full) next = store.readAll({ from: page[page.length - 1]!.position, maxCount: pageSize });
      yield page;
      if (!full) return;
    }
  } finally {
    // A caller that stops early leaves the read ahead unawaited: its outcome no longer matters.
    next.catch(() => undefined);
  }
}
