/**
 * The event store, traced: each append is an `event.append` span, and each event it appends carries
 * that span's context in its metadata (`traceparent`, `tracestate`), so whoever reads the event (the
 * relay, the outcome waiter, in any process) continues its trace. Tracing off, appends go straight
 * to the store. An atomic append is one span too, its streams named together.
 */
import { decorate, type EventStore, type NewEvent } from '../event-store/port';
import { activeCarrier, inSpan, isTracing } from './spans';

export function tracedAppends(store: EventStore): EventStore {
  const atomically = store.appendAtomically?.bind(store);
  return decorate(store, {
    ...(atomically && {
      appendAtomically: (appends) => {
        if (!isTracing()) return atomically(appends);
        const types = [...new Set(appends.flatMap((a) => a.events.map((e) => e.type)))].join(',');
        return inSpan(
          'event.append',
          () => {
            const carrier = activeCarrier();
            return atomically(
              carrier
                ? appends.map((a) => ({ ...a, events: a.events.map((e) => carrying(e, carrier)) }))
                : appends,
            );
          },
          { 'event.stream': appends.map((a) => a.stream).join(','), 'event.types': types },
        );
      },
    }),
    append: (stream, events, expected) => {
      if (!isTracing()) return store.append(stream, events, expected);
      const types = [...new Set(events.map((e) => e.type))].join(',');
      return inSpan(
        'event.append',
        () => {
          const carrier = activeCarrier();
          return store.append(stream, carrier ? events.map((e) => carrying(e, carrier)) : events, expected);
        },
        { 'event.stream': stream, 'event.types': types },
      );
    },
  });
}

const carrying = (e: NewEvent, carrier: Record<string, string>): NewEvent => ({
  ...e,
  metadata: { ...e.metadata, ...carrier },
});
