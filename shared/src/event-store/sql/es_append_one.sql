-- es_append_one: one batch of events appended to one stream.
-- Loaded by postgres.ts (SCHEMA_SQL), in the order schema.sql, es_append_one.sql,
-- es_append_batches.sql, at every start: each statement may run again.

-- Appends one batch to its stream at the expected revision: where it landed, or the conflict and the
-- stream's actual revision. The same event ids appended again answer the first append and store
-- nothing. 'stored' is what it stored (each event's position and link, in order), NULL for a conflict
-- or a repeat.
CREATE OR REPLACE FUNCTION es_append_one(p_stream text, p_expected text, p_events jsonb,
  OUT next_revision bigint, OUT commit_position xid8, OUT prepare_position bigint,
  OUT conflict boolean, OUT actual bigint, OUT stored jsonb)
LANGUAGE plpgsql AS $fn$
DECLARE
  n int := jsonb_array_length(p_events);
  new_rev bigint;
  link bytea;
  links bytea[] := ARRAY[]::bytea[];
BEGIN
  conflict := false;
  IF EXISTS (SELECT 1 FROM es_events WHERE event_id = (p_events->0->>'id')::uuid) THEN
    SELECT max(e.stream_revision), max(e.transaction_id::text)::xid8, max(e.global_position)
      INTO next_revision, commit_position, prepare_position
    FROM es_events e
    WHERE e.event_id IN (SELECT (x->>'id')::uuid FROM jsonb_array_elements(p_events) x)
      AND e.stream_name = p_stream;
    RETURN;
  END IF;

  IF p_expected = 'any' THEN
    INSERT INTO es_streams AS s VALUES (p_stream, n - 1)
    ON CONFLICT (stream_name) DO UPDATE SET revision = s.revision + n
    RETURNING s.revision INTO new_rev;
  ELSIF p_expected = 'no_stream' THEN
    INSERT INTO es_streams VALUES (p_stream, n - 1) ON CONFLICT DO NOTHING RETURNING revision INTO new_rev;
  ELSIF p_expected = 'stream_exists' THEN
    UPDATE es_streams SET revision = revision + n WHERE stream_name = p_stream RETURNING revision INTO new_rev;
  ELSE
    UPDATE es_streams SET revision = revision + n
    WHERE stream_name = p_stream AND revision = p_expected::bigint
    RETURNING revision INTO new_rev;
  END IF;

  IF new_rev IS NULL THEN
    conflict := true;
    SELECT revision INTO actual FROM es_streams WHERE stream_name = p_stream;
    RETURN;
  END IF;

  -- Each event's link: SHA-256 of the previous event's link and its content hash (given by the
  -- writer as 'h'). The stream's row is locked above, so the previous event is the one before.
  SELECT e.hash INTO link FROM es_events e WHERE e.stream_name = p_stream AND e.stream_revision = new_rev - n;
  link := COALESCE(link, decode(repeat('00', 32), 'hex'));
  FOR k IN 0 .. n - 1 LOOP
    link := sha256(link || decode(p_events->k->>'h', 'hex'));
    links := links || link;
  END LOOP;

  WITH inserted AS (
    INSERT INTO es_events (stream_name, stream_revision, event_id, event_type, data, metadata, hash)
    SELECT p_stream, new_rev - n + t.ord, (t.e->>'id')::uuid, t.e->>'type', t.e->'data', t.e->'metadata', links[t.ord]
    FROM jsonb_array_elements(p_events) WITH ORDINALITY AS t(e, ord)
    ORDER BY t.ord
    RETURNING global_position, stream_revision, hash
  )
  SELECT max(global_position), jsonb_agg(jsonb_build_array(global_position::text, encode(hash, 'hex')) ORDER BY stream_revision)
  INTO prepare_position, stored FROM inserted;
  next_revision := new_rev;
  commit_position := pg_current_xact_id();
END
$fn$;

-- Appends several batches, each to its stream with its own expected revision, in one transaction.
-- A batch ({"s": stream, "x": expected, "e": events}) whose expectation fails is reported (conflict,
-- actual revision) and the others still land. An atomic append ({"all": [batch, ...]}) lands whole or
-- not at all: a conflict on one of its batches undoes the others (the block's subtransaction rolls
-- back) and is reported on that batch alone. Rows are numbered by batch, across both kinds, from 0.
-- A batch stored answers what it stored (appended: each event's position and link, in order), which
-- is what a store that is the log's only writer hands its subscribers (feed.ts); NULL otherwise.
