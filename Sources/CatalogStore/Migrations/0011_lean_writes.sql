-- Less work for PostgreSQL in every product change and history event, the same rules (docs/performance.md has
-- the profile this follows: the triggers were about half of the database's time for an action).
--
-- 1. history_link finds the chain head first and creates it only when it is missing: the INSERT ... ON
--    CONFLICT DO NOTHING it ran for every event is one statement fewer. It no longer has a SET search_path
--    clause, which made PostgreSQL save and restore the setting around every call; instead the tables, sequence
--    and functions it uses are schema-qualified. What a caller's search_path could still reach is an operator,
--    and it could put one there only from a schema of its own: pg_temp is never searched for operators or
--    functions, and the service's role may create nothing in any schema (0003). The chain head's tuple id,
--    kept in a transaction-local setting so that a transaction appending many events to one chain does not
--    walk the versions it left behind, costs two setting calls per event; it is used now only when the
--    transaction asks for it with SET LOCAL iap.history_bulk = on (a StoreKit import, bench/load.sql).
-- 2. An event's canonical JSON writes an empty `changes` as `[]` without calling iap_canonical_json (the
--    text is the same; an action's event has no changes).
-- 3. The identifier notification triggers fire only when a row goes on or off sale (a WHEN clause is tested
--    without calling the function).
-- 4. The localizations rule moves from a CHECK constraint, evaluated on every update whatever changed, into
--    products_guard, where it is evaluated when a product is created or its localizations or type change. It
--    raises what the constraint raised: SQLSTATE 23514, constraint products_localizations_check.

CREATE OR REPLACE FUNCTION history_link() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER AS $$
DECLARE
    bulk boolean := coalesce(pg_catalog.current_setting('iap.history_bulk', true), '') = 'on';
    cached text;
    head_tuple tid;
    head_seq bigint;
    head_hash bytea;
BEGIN
    NEW.chain := coalesce(NEW.app, '');
    IF bulk THEN
        cached := pg_catalog.current_setting('iap.history_chain_head', true);
        IF pg_catalog.starts_with(cached, NEW.chain || '|')
           AND pg_catalog.substr(cached, pg_catalog.length(NEW.chain) + 2) OPERATOR(pg_catalog.~) '^\([0-9]+,[0-9]+\)$' THEN
            SELECT ctid, last_seq, last_hash INTO head_tuple, head_seq, head_hash FROM public.history_chains
            WHERE ctid = pg_catalog.substr(cached, pg_catalog.length(NEW.chain) + 2)::tid AND chain = NEW.chain
            FOR UPDATE;
        END IF;
    END IF;
    IF head_tuple IS NULL THEN
        SELECT ctid, last_seq, last_hash INTO head_tuple, head_seq, head_hash FROM public.history_chains
        WHERE chain = NEW.chain FOR UPDATE;
    END IF;
    IF head_tuple IS NULL THEN
        INSERT INTO public.history_chains (chain, last_seq, last_hash)
            VALUES (NEW.chain, 0, pg_catalog.decode(pg_catalog.repeat('00', 32), 'hex'))
            ON CONFLICT (chain) DO NOTHING;
        SELECT ctid, last_seq, last_hash INTO head_tuple, head_seq, head_hash FROM public.history_chains
        WHERE chain = NEW.chain FOR UPDATE;
    END IF;
    NEW.sequence := pg_catalog.nextval('public.history_sequence');
    NEW.txid := pg_catalog.pg_current_xact_id();
    NEW.at := pg_catalog.date_trunc('milliseconds', pg_catalog.clock_timestamp());
    NEW.chain_seq := head_seq + 1;
    NEW.previous_hash := head_hash;
    NEW.hash := pg_catalog.sha256(head_hash || pg_catalog.convert_to(public.history_canonical(NEW), 'UTF8'));
    UPDATE public.history_chains SET last_seq = NEW.chain_seq, last_hash = NEW.hash WHERE ctid = head_tuple
        RETURNING ctid INTO head_tuple;
    IF bulk THEN
        PERFORM pg_catalog.set_config('iap.history_chain_head', NEW.chain || '|' || head_tuple::text, true);
    END IF;
    RETURN NEW;
END
$$;
ALTER FUNCTION history_link() RESET ALL;

CREATE OR REPLACE FUNCTION history_canonical(e history_events) RETURNS text
LANGUAGE sql STABLE AS $$
    SELECT '{"action":' || public.iap_json_text(e.action::text)
        || ',"actor":{"keyId":' || public.iap_json_text(e.actor_key_id::text)
        || ',"name":' || public.iap_json_text(e.actor_name)
        || ',"role":' || public.iap_json_text(e.actor_role::text) || '}'
        || ',"app":' || public.iap_json_text(e.app)
        || ',"at":' || public.iap_json_text(pg_catalog.to_char(e.at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'))
        || ',"chain":' || public.iap_json_text(e.chain)
        || ',"chainSeq":' || e.chain_seq::text
        || ',"changes":' || CASE WHEN e.changes = '[]'::jsonb THEN '[]' ELSE public.iap_canonical_json(e.changes) END
        || ',"fromState":' || public.iap_json_text(e.from_state::text)
        || ',"kind":' || public.iap_json_text(e.kind::text)
        || ',"productId":' || public.iap_json_text(e.product_id)
        || ',"productVersion":' || coalesce(e.product_version::text, 'null')
        || ',"reason":' || public.iap_json_text(e.reason)
        || ',"requestId":' || public.iap_json_text(e.request_id)
        || ',"sequence":' || e.sequence::text
        || ',"toState":' || public.iap_json_text(e.to_state::text)
        || '}'
$$;

DROP TRIGGER products_notify_product_identifiers ON products;
CREATE TRIGGER products_notify_product_identifiers_inserted AFTER INSERT ON products
    FOR EACH ROW WHEN (NEW.on_sale) EXECUTE FUNCTION notify_product_identifiers();
CREATE TRIGGER products_notify_product_identifiers_updated AFTER UPDATE ON products
    FOR EACH ROW WHEN (OLD.on_sale IS DISTINCT FROM NEW.on_sale) EXECUTE FUNCTION notify_product_identifiers();
CREATE TRIGGER products_notify_product_identifiers_deleted AFTER DELETE ON products
    FOR EACH ROW WHEN (OLD.on_sale) EXECUTE FUNCTION notify_product_identifiers();

ALTER TABLE products DROP CONSTRAINT products_localizations_check;

CREATE OR REPLACE FUNCTION products_guard() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        IF NEW.state <> 'PENDING_DEVELOPER_APPROVAL' OR NEW.version <> 1 OR NEW.live_content IS NOT NULL
           OR NEW.ever_submitted THEN
            RAISE EXCEPTION USING ERRCODE = 'IC001',
                MESSAGE = 'a product is created in PENDING_DEVELOPER_APPROVAL at version 1, never live or submitted';
        END IF;
    ELSE
        IF NEW.app IS DISTINCT FROM OLD.app OR NEW.product_id IS DISTINCT FROM OLD.product_id
           OR NEW.type IS DISTINCT FROM OLD.type OR NEW.created_at IS DISTINCT FROM OLD.created_at THEN
            RAISE EXCEPTION USING ERRCODE = 'IC002', MESSAGE = 'app, product_id, type and created_at never change';
        END IF;
        IF OLD.state = 'REJECTED' THEN
            RAISE EXCEPTION USING ERRCODE = 'IC001', MESSAGE = 'a REJECTED product is final';
        END IF;
        IF NEW.version <> OLD.version + 1 THEN
            RAISE EXCEPTION USING ERRCODE = 'IC002', MESSAGE = 'every change grows the version by exactly one';
        END IF;
        IF NEW.state <> OLD.state AND NOT EXISTS (
            SELECT 1 FROM review_transitions t
            WHERE t.cause = NEW.last_change AND t.from_state = OLD.state AND t.to_state = NEW.state
        ) THEN
            RAISE EXCEPTION USING ERRCODE = 'IC001',
                MESSAGE = format('illegal state change %s -> %s by %s', OLD.state, NEW.state, NEW.last_change);
        END IF;
    END IF;
    IF (TG_OP = 'INSERT' OR NEW.localizations IS DISTINCT FROM OLD.localizations)
       AND iap_localizations_valid(NEW.localizations, NEW.type) IS NOT TRUE THEN
        RAISE EXCEPTION USING ERRCODE = 'check_violation', CONSTRAINT = 'products_localizations_check',
            TABLE = 'products', MESSAGE = 'localizations break App Store Connect''s limits';
    END IF;
    RETURN NEW;
END
$$;
