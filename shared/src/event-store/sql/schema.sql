-- The event store's tables: the events, the streams' revisions, and their indexes.
-- Loaded by postgres.ts (SCHEMA_SQL), in the order schema.sql, es_append_one.sql,
-- es_append_batches.sql, at every start: each statement may run again.

CREATE TABLE IF NOT EXISTS es_streams (
  stream_name text PRIMARY KEY,
  revision bigint NOT NULL
);
CREATE TABLE IF NOT EXISTS es_events (
  global_position bigserial NOT NULL,
  transaction_id xid8 NOT NULL DEFAULT pg_current_xact_id(),
  stream_name text NOT NULL,
  stream_revision bigint NOT NULL,
  event_id uuid NOT NULL UNIQUE,
  event_type text NOT NULL,
  data jsonb NOT NULL,
  metadata jsonb NOT NULL,
  UNIQUE (stream_name, stream_revision),
  -- The log order is the key: readers walk it, and it is one index less to write than a separate one.
  PRIMARY KEY (transaction_id, global_position)
);
-- Tamper evidence (hash-chain.ts): the event's link in its stream's hash chain. NULL for events
-- appended before the chain existed; a stream is verified from its first hashed event.
ALTER TABLE es_events ADD COLUMN IF NOT EXISTS hash bytea;
-- The events of one intent (their correlation id): the audit's story of an intent without a scan.
CREATE INDEX IF NOT EXISTS es_events_correlation ON es_events ((metadata->>'correlation_id'))
  WHERE metadata ? 'correlation_id';
