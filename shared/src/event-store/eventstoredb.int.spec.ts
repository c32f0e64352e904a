/**
 * EventStoreDB cannot run on these machines (no Docker engine, no .NET). The suite runs when
 * EVENTSTORE_CONNECTION_STRING points at a server (e.g. esdb://127.0.0.1:2113?tls=false) and is
 * skipped, saying why, otherwise.
 */
import { eventStoreContract } from './contract';
import { EventStoreDbEventStore } from './eventstoredb';

const connection = process.env.EVENTSTORE_CONNECTION_STRING;

if (connection) {
  eventStoreContract('EventStoreDB', async () => EventStoreDbEventStore.connect(connection));
} else {
  console.log(
    'EventStoreDB contract suite skipped: EVENTSTORE_CONNECTION_STRING is not set ' +
      '(EventStoreDB cannot run on this machine; set it to esdb://host:2113?tls=false to run the suite).',
  );
  describe.skip('event store contract: EventStoreDB (EVENTSTORE_CONNECTION_STRING not set)', () => {
    it('runs against a live EventStoreDB', () => undefined);
  });
}
