-- es_append_batches: every batch of one round trip, alone or atomically, and their announcement.
-- Loaded by postgres.ts (SCHEMA_SQL), in the order schema.sql, es_append_one.sql,
-- es_append_batches.sql, at every start: each statement may run again.

-- The answer's shape changed (appended, issue 28): a function of the old shape is replaced.
DO $do$ BEGIN
  IF EXISTS (SELECT 1 FROM pg_proc WHERE oid = to_regprocedure('es_append_batches(jsonb)')
             AND NOT ('appended' = ANY (proargnames))) THEN
    DROP FUNCTION es_append_batches(jsonb);
  END IF;
END $do$;
CREATE OR REPLACE FUNCTION es_append_batches(p_items jsonb)
RETURNS TABLE (item int, next_revision bigint, commit_position xid8, prepare_position bigint, conflict boolean, actual bigint, appended jsonb)
LANGUAGE plpgsql AS $fn$
DECLARE
  it jsonb;
  b jsonb;
  i int := -1;
  r record;
  reached bigint;
  kinds text[] := ARRAY[]::text[];
  -- An atomic append's results and what it would announce, kept until all of it landed.
  all_items int[];
  all_next bigint[];
  all_commit xid8[];
  all_prepare bigint[];
  all_stored jsonb[];
  all_reached bigint;
  all_kinds text[];
  all_last int;
  announcement text;
BEGIN
  FOR it IN SELECT value FROM jsonb_array_elements(p_items) LOOP
    IF NOT it ? 'all' THEN
      i := i + 1;
      r := es_append_one(it->>'s', it->>'x', it->'e');
      IF r.stored IS NOT NULL THEN
        reached := GREATEST(reached, r.prepare_position);
        kinds := kinds || ARRAY(SELECT DISTINCT x->>'type' FROM jsonb_array_elements(it->'e') x);
      END IF;
      RETURN QUERY SELECT i, r.next_revision, r.commit_position, r.prepare_position, r.conflict, r.actual, r.stored;
      CONTINUE;
    END IF;

    all_items := ARRAY[]::int[];
    all_next := ARRAY[]::bigint[];
    all_commit := ARRAY[]::xid8[];
    all_prepare := ARRAY[]::bigint[];
    all_stored := ARRAY[]::jsonb[];
    all_reached := NULL;
    all_kinds := ARRAY[]::text[];
    all_last := i + jsonb_array_length(it->'all');
    BEGIN
      FOR b IN SELECT value FROM jsonb_array_elements(it->'all') LOOP
        i := i + 1;
        r := es_append_one(b->>'s', b->>'x', b->'e');
        -- Variables keep their values through the rollback: r says which batch conflicted.
        IF r.conflict THEN RAISE EXCEPTION USING ERRCODE = 'ES409'; END IF;
        all_items := all_items || i;
        all_next := all_next || r.next_revision;
        all_commit := all_commit || r.commit_position;
        all_prepare := all_prepare || r.prepare_position;
        all_stored := all_stored || r.stored;
        IF r.stored IS NOT NULL THEN
          all_reached := GREATEST(all_reached, r.prepare_position);
          all_kinds := all_kinds || ARRAY(SELECT DISTINCT x->>'type' FROM jsonb_array_elements(b->'e') x);
        END IF;
      END LOOP;
      reached := GREATEST(reached, all_reached);
      kinds := kinds || all_kinds;
      RETURN QUERY SELECT u.k, u.rev, u.tx, u.pos, false, NULL::bigint, u.st
        FROM unnest(all_items, all_next, all_commit, all_prepare, all_stored) AS u(k, rev, tx, pos, st);
    EXCEPTION WHEN SQLSTATE 'ES409' THEN
      RETURN QUERY SELECT i, NULL::bigint, NULL::xid8, NULL::bigint, true, r.actual, NULL::jsonb;
    END;
    i := all_last;
  END LOOP;

  -- Subscribers are told once this transaction commits, how far it reached and what it held
  -- (announce.ts): '<transaction>/<position> <type>,<type>...', or '' when that would not fit.
  IF reached IS NOT NULL THEN
    announcement := pg_current_xact_id()::text || '/' || reached || ' '
      || array_to_string(ARRAY(SELECT DISTINCT unnest(kinds)), ',');
    PERFORM pg_notify('es_events', CASE WHEN length(announcement) < 7900 THEN announcement ELSE '' END);
  END IF;
END
$fn$;
