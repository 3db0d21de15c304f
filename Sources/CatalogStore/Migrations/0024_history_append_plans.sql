-- history_append as 0001 made it, and history_append_all in PL/pgSQL (docs/performance.md, 2026-11-28).
--
-- 0023 made history_append a SQL function calling history_append_all, so that an event's fields were mapped to
-- columns in one place. A SQL function called from another is planned anew at each call: every event appended
-- parsed and planned history_append_all's INSERT again. The catalog's actions append one event per row of
-- their batch statement (ProductRepository's SaveStates): the benchmark's actions cost PostgreSQL 0.95 ms each
-- instead of 0.44 (1,086 committed/s instead of about 1,700). In PL/pgSQL each function's statement is planned
-- once per connection.
--
-- The mapping is written twice again, one event and a list; HistoryChainTests appends one event both ways and
-- finds the same row.

CREATE OR REPLACE FUNCTION history_append(event jsonb) RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE
    appended bigint;
BEGIN
    INSERT INTO history_events (app, product_id, product_version, kind, action, from_state, to_state,
                                actor_key_id, actor_name, actor_role, reason, changes, request_id)
    VALUES (event ->> 'app', event ->> 'productId', (event ->> 'productVersion')::integer,
            (event ->> 'kind')::history_kind, (event ->> 'action')::review_action,
            (event ->> 'fromState')::review_state, (event ->> 'toState')::review_state,
            (event -> 'actor' ->> 'keyId')::uuid, event -> 'actor' ->> 'name', (event -> 'actor' ->> 'role')::key_role,
            event ->> 'reason', coalesce(event -> 'changes', '[]'), event ->> 'requestId')
    RETURNING sequence INTO appended;
    RETURN appended;
END
$$;

-- Appends `events` in their order, in one statement, as history_append appends each; answers their sequence
-- numbers.
CREATE OR REPLACE FUNCTION history_append_all(events jsonb[]) RETURNS SETOF bigint
LANGUAGE plpgsql AS $$
BEGIN
    RETURN QUERY
    INSERT INTO history_events (app, product_id, product_version, kind, action, from_state, to_state,
                                actor_key_id, actor_name, actor_role, reason, changes, request_id)
    SELECT e.event ->> 'app', e.event ->> 'productId', (e.event ->> 'productVersion')::integer,
           (e.event ->> 'kind')::history_kind, (e.event ->> 'action')::review_action,
           (e.event ->> 'fromState')::review_state, (e.event ->> 'toState')::review_state,
           (e.event -> 'actor' ->> 'keyId')::uuid, e.event -> 'actor' ->> 'name',
           (e.event -> 'actor' ->> 'role')::key_role, e.event ->> 'reason', coalesce(e.event -> 'changes', '[]'),
           e.event ->> 'requestId'
    FROM unnest(events) WITH ORDINALITY AS e(event, position)
    ORDER BY e.position
    RETURNING sequence;
END
$$;
