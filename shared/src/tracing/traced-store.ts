/**
 * The event store, traced: each append is an `event.append` span, and each event it appends carries
 * that span's context in its metadata (`traceparent`, `tracestate`), so whoever reads the event (the
 * relay, the outcome waiter, in any process) continues its trace. Tracing off, appends go straight
 * to the store.
 */
import { decorate, type EventStore, type NewEvent } from '../event-store/port';
import { activeCarrier, inSpan, isTracing } from './spans';

export function tracedAppends(store: EventStore): EventStore {
  return decorate(store, {
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
