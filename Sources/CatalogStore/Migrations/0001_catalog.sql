-- The catalog: apps, subscription groups, products, product-id reservations, API keys, idempotency records,
-- and the append-only, hash-chained history. The database holds here the invariants that must hold whatever
-- the client: enum types, limits as CHECK constraints, the review transition table with a trigger that
-- refuses any other state change, reservations that outlive deletion, a history row for every product change.
--
-- Our own errors use SQLSTATE class "IC" so that the store can tell them apart:
--   IC001 illegal state change   IC002 immutable column changed   IC003 append-only table changed
--   IC004 product change without its history event

CREATE TYPE purchase_type AS ENUM (
    'CONSUMABLE', 'NON_CONSUMABLE', 'AUTO_RENEWABLE_SUBSCRIPTION', 'FREE_SUBSCRIPTION', 'NON_RENEWING_SUBSCRIPTION'
);

CREATE TYPE review_state AS ENUM (
    'PENDING_DEVELOPER_APPROVAL', 'APPROVED_BY_DEVELOPER', 'WAITING_FOR_REVIEW', 'IN_REVIEW',
    'DEVELOPER_ACTION_REQUIRED', 'READY_FOR_SALE', 'REJECTED', 'DEVELOPER_REMOVED_FROM_SALE'
);

CREATE TYPE review_action AS ENUM (
    'approve', 'submit', 'withdraw', 'start_review', 'accept', 'request_changes', 'reject', 'resubmit',
    'cancel_change', 'submit_change', 'remove_from_sale', 'restore_to_sale'
);

CREATE TYPE key_role AS ENUM ('admin', 'developer', 'reviewer', 'auditor');

CREATE TYPE history_kind AS ENUM (
    'created', 'edited', 'action', 'deleted', 'app_created', 'app_edited', 'group_created', 'group_edited',
    'key_created', 'key_revoked'
);

-- Apps -------------------------------------------------------------------------------------------------------

CREATE TABLE apps (
    bundle_id      text COLLATE "C" PRIMARY KEY CHECK (bundle_id ~ '^[A-Za-z0-9][A-Za-z0-9.-]{0,154}$'),
    name           text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 64),
    newsstand      boolean NOT NULL DEFAULT false,
    primary_locale text NOT NULL CHECK (primary_locale ~ '^[a-z]{2,3}(-[A-Z][a-z]{3})?(-([A-Z]{2}|[0-9]{3}))?$'),
    -- Kept by trigger so that the 10,000-products limit holds under concurrent creation.
    product_count  integer NOT NULL DEFAULT 0 CONSTRAINT apps_product_limit CHECK (product_count BETWEEN 0 AND 10000),
    created_at     timestamptz NOT NULL DEFAULT now(),
    updated_at     timestamptz NOT NULL DEFAULT now()
);

-- Subscription groups --------------------------------------------------------------------------------------

CREATE TABLE subscription_groups (
    app            text COLLATE "C" NOT NULL REFERENCES apps (bundle_id),
    id             uuid NOT NULL DEFAULT gen_random_uuid(),
    reference_name text NOT NULL CHECK (char_length(reference_name) BETWEEN 1 AND 64),
    localizations  jsonb NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(localizations) = 'array'),
    created_at     timestamptz NOT NULL DEFAULT now(),
    updated_at     timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (app, id),
    CONSTRAINT subscription_groups_reference_name_unique UNIQUE (app, reference_name)
);

-- Products -------------------------------------------------------------------------------------------------

-- Whether a localizations array keeps App Store Connect's limits (used by a CHECK constraint).
CREATE FUNCTION iap_localizations_valid(localizations jsonb) RETURNS boolean
LANGUAGE sql IMMUTABLE AS $$
    SELECT jsonb_typeof(localizations) = 'array'
       AND jsonb_array_length(localizations) <= 100
       AND NOT EXISTS (
           SELECT 1 FROM jsonb_array_elements(localizations) AS l(item)
           WHERE jsonb_typeof(item) <> 'object'
              OR coalesce(char_length(item ->> 'displayName'), 0) NOT BETWEEN 2 AND 30
              OR coalesce(char_length(item ->> 'description'), 0) NOT BETWEEN 1 AND 45
              OR coalesce(item ->> 'locale', '') !~ '^[a-z]{2,3}(-[A-Z][a-z]{3})?(-([A-Z]{2}|[0-9]{3}))?$'
       )
$$;

CREATE TABLE products (
    app                   text COLLATE "C" NOT NULL REFERENCES apps (bundle_id),
    product_id            text COLLATE "C" NOT NULL CHECK (product_id ~ '^[A-Za-z0-9._-]{1,100}$'),
    type                  purchase_type NOT NULL,
    state                 review_state NOT NULL DEFAULT 'PENDING_DEVELOPER_APPROVAL',
    version               integer NOT NULL DEFAULT 1 CHECK (version >= 1),
    -- What made the latest change: 'create', 'edit' or an action's name; the transition trigger checks it.
    last_change           text NOT NULL DEFAULT 'create',
    -- Unreviewed fields.
    reference_name        text NOT NULL CHECK (char_length(reference_name) BETWEEN 1 AND 64),
    price_currency        text CHECK (price_currency ~ '^[A-Z]{3}$'),
    price_amount          numeric CHECK (price_amount >= 0 AND price_amount < 10000000000 AND scale(price_amount) <= 6),
    territory_prices      jsonb NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(territory_prices) = 'array'),
    introductory_offer    jsonb CHECK (jsonb_typeof(introductory_offer) = 'object'),
    cleared_for_sale      boolean NOT NULL DEFAULT true,
    -- Reviewed fields of the working revision.
    localizations         jsonb NOT NULL DEFAULT '[]' CHECK (iap_localizations_valid(localizations)),
    review_note           text CHECK (char_length(review_note) <= 4000),
    family_shareable      boolean NOT NULL DEFAULT false,
    subscription_group_id uuid,
    level                 integer CHECK (level BETWEEN 1 AND 10000),
    duration              text CHECK (duration IN ('P1W', 'P1M', 'P2M', 'P3M', 'P6M', 'P1Y')),
    -- The reviewed fields of the live revision, once the product has passed review.
    live_content          jsonb CHECK (jsonb_typeof(live_content) = 'object'),
    submitted_from        review_state,
    ever_submitted        boolean NOT NULL DEFAULT false,
    on_sale               boolean GENERATED ALWAYS AS
                              (live_content IS NOT NULL AND cleared_for_sale AND state <> 'REJECTED') STORED,
    created_at            timestamptz NOT NULL DEFAULT now(),
    updated_at            timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (app, product_id),
    CONSTRAINT products_reference_name_unique UNIQUE (app, reference_name),
    CONSTRAINT products_subscription_group_fk FOREIGN KEY (app, subscription_group_id)
        REFERENCES subscription_groups (app, id),
    CHECK ((price_currency IS NULL) = (price_amount IS NULL)),
    CHECK (state <> 'WAITING_FOR_REVIEW' OR submitted_from IS NOT NULL)
);

CREATE UNIQUE INDEX products_level_unique ON products (app, subscription_group_id, level)
    WHERE level IS NOT NULL AND subscription_group_id IS NOT NULL AND state <> 'REJECTED';
CREATE UNIQUE INDEX products_one_free_subscription ON products (app) WHERE type = 'FREE_SUBSCRIPTION';
CREATE INDEX products_by_state ON products (app, state, product_id);
CREATE INDEX products_on_sale ON products (app, product_id) WHERE on_sale;

-- Every productId ever used in an app, so that none is reused after deletion or rejection.
CREATE TABLE product_id_reservations (
    app         text COLLATE "C" NOT NULL REFERENCES apps (bundle_id),
    product_id  text COLLATE "C" NOT NULL,
    reserved_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (app, product_id)
);

-- The review lifecycle's transition table, flattened: every permitted (cause, from, to) with the role that
-- may cause it. 'edit' is the one change that is not an action: editing reviewed fields of an approved
-- product revokes the approval. CatalogCore's Transition.table is the same table (a test compares them).
CREATE TABLE review_transitions (
    cause      text NOT NULL,
    from_state review_state NOT NULL,
    to_state   review_state NOT NULL,
    role       key_role NOT NULL,
    PRIMARY KEY (cause, from_state, to_state)
);

INSERT INTO review_transitions (cause, from_state, to_state, role) VALUES
    ('approve',          'PENDING_DEVELOPER_APPROVAL',  'APPROVED_BY_DEVELOPER',       'developer'),
    ('submit',           'APPROVED_BY_DEVELOPER',       'WAITING_FOR_REVIEW',          'developer'),
    ('withdraw',         'WAITING_FOR_REVIEW',          'APPROVED_BY_DEVELOPER',       'developer'),
    ('withdraw',         'WAITING_FOR_REVIEW',          'DEVELOPER_ACTION_REQUIRED',   'developer'),
    ('withdraw',         'WAITING_FOR_REVIEW',          'READY_FOR_SALE',              'developer'),
    ('withdraw',         'WAITING_FOR_REVIEW',          'DEVELOPER_REMOVED_FROM_SALE', 'developer'),
    ('start_review',     'WAITING_FOR_REVIEW',          'IN_REVIEW',                   'reviewer'),
    ('accept',           'IN_REVIEW',                   'READY_FOR_SALE',              'reviewer'),
    ('accept',           'IN_REVIEW',                   'DEVELOPER_REMOVED_FROM_SALE', 'reviewer'),
    ('request_changes',  'IN_REVIEW',                   'DEVELOPER_ACTION_REQUIRED',   'reviewer'),
    ('reject',           'IN_REVIEW',                   'REJECTED',                    'reviewer'),
    ('resubmit',         'DEVELOPER_ACTION_REQUIRED',   'WAITING_FOR_REVIEW',          'developer'),
    ('cancel_change',    'DEVELOPER_ACTION_REQUIRED',   'READY_FOR_SALE',              'developer'),
    ('cancel_change',    'DEVELOPER_ACTION_REQUIRED',   'DEVELOPER_REMOVED_FROM_SALE', 'developer'),
    ('submit_change',    'READY_FOR_SALE',              'WAITING_FOR_REVIEW',          'developer'),
    ('submit_change',    'DEVELOPER_REMOVED_FROM_SALE', 'WAITING_FOR_REVIEW',          'developer'),
    ('remove_from_sale', 'READY_FOR_SALE',              'DEVELOPER_REMOVED_FROM_SALE', 'developer'),
    ('restore_to_sale',  'DEVELOPER_REMOVED_FROM_SALE', 'READY_FOR_SALE',              'developer'),
    ('edit',             'APPROVED_BY_DEVELOPER',       'PENDING_DEVELOPER_APPROVAL',  'developer');

-- A product is born pending approval, keeps its identity and type, grows its version by one with every
-- change, and changes state only along review_transitions.
CREATE FUNCTION products_guard() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        IF NEW.state <> 'PENDING_DEVELOPER_APPROVAL' OR NEW.version <> 1 OR NEW.live_content IS NOT NULL
           OR NEW.ever_submitted THEN
            RAISE EXCEPTION USING ERRCODE = 'IC001',
                MESSAGE = 'a product is created in PENDING_DEVELOPER_APPROVAL at version 1, never live or submitted';
        END IF;
        RETURN NEW;
    END IF;
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
    RETURN NEW;
END
$$;

CREATE TRIGGER products_guard BEFORE INSERT OR UPDATE ON products
    FOR EACH ROW EXECUTE FUNCTION products_guard();

-- Reserve the productId for good, and keep the app's product count for the per-app limit.
CREATE FUNCTION products_count_and_reserve() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO product_id_reservations (app, product_id) VALUES (NEW.app, NEW.product_id);
        UPDATE apps SET product_count = product_count + 1 WHERE bundle_id = NEW.app;
    ELSE
        UPDATE apps SET product_count = product_count - 1 WHERE bundle_id = OLD.app;
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER products_count_and_reserve AFTER INSERT OR DELETE ON products
    FOR EACH ROW EXECUTE FUNCTION products_count_and_reserve();

CREATE FUNCTION refuse_change() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION USING ERRCODE = 'IC003', MESSAGE = format('%s is append-only: %s refused', TG_TABLE_NAME, TG_OP);
END
$$;

CREATE TRIGGER product_id_reservations_append_only BEFORE UPDATE OR DELETE ON product_id_reservations
    FOR EACH ROW EXECUTE FUNCTION refuse_change();
CREATE TRIGGER product_id_reservations_no_truncate BEFORE TRUNCATE ON product_id_reservations
    FOR EACH STATEMENT EXECUTE FUNCTION refuse_change();

-- API keys and idempotency ---------------------------------------------------------------------------------

CREATE TABLE api_keys (
    id         uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    name       text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 100),
    role       key_role NOT NULL,
    -- NULL: every app.
    apps       text[] CHECK (apps IS NULL OR cardinality(apps) >= 1),
    -- SHA-256 of the token; the token itself is shown once and never stored.
    token_hash bytea NOT NULL UNIQUE CHECK (octet_length(token_hash) = 32),
    created_at timestamptz NOT NULL DEFAULT now(),
    expires_at timestamptz,
    revoked_at timestamptz
);

-- The first answer to a POST made with an Idempotency-Key, per API key, replayed to retries.
CREATE TABLE idempotency_keys (
    key_id           uuid NOT NULL REFERENCES api_keys (id),
    idempotency_key  text NOT NULL,
    request_hash     bytea NOT NULL,
    -- NULL while the first request is still being answered.
    status           integer,
    response_headers jsonb,
    response_body    bytea,
    created_at       timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (key_id, idempotency_key)
);

CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at);

-- History --------------------------------------------------------------------------------------------------

CREATE TABLE history_events (
    sequence        bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    -- The hash chain the event belongs to: its app's bundle id, or '' for events outside any app.
    chain           text COLLATE "C" NOT NULL,
    chain_seq       bigint NOT NULL,
    at              timestamptz NOT NULL,
    app             text COLLATE "C",
    product_id      text COLLATE "C",
    -- The product's version after the change.
    product_version integer,
    kind            history_kind NOT NULL,
    action          review_action,
    from_state      review_state,
    to_state        review_state,
    actor_key_id    uuid,
    actor_name      text NOT NULL,
    actor_role      key_role NOT NULL,
    reason          text,
    -- [{"field": ..., "old": ..., "new": ...}]
    changes         jsonb NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(changes) = 'array'),
    request_id      text,
    previous_hash   bytea NOT NULL,
    hash            bytea NOT NULL,
    CONSTRAINT history_events_chain_position UNIQUE (chain, chain_seq)
);

CREATE INDEX history_events_by_product ON history_events (app, product_id, sequence);

CREATE TABLE history_chains (
    chain     text PRIMARY KEY,
    last_seq  bigint NOT NULL,
    last_hash bytea NOT NULL
);

-- A JSON string literal for `value` (escaping as RFC 8785 does), or null.
CREATE FUNCTION iap_json_text(value text) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
    SELECT coalesce(to_json(value)::text, 'null')
$$;

-- The canonical text of a JSON value: no insignificant whitespace, object keys sorted by code point.
CREATE FUNCTION iap_canonical_json(value jsonb) RETURNS text
LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
    RETURN CASE jsonb_typeof(value)
        WHEN 'object' THEN '{' || coalesce((
            SELECT string_agg(to_json(k)::text || ':' || iap_canonical_json(v), ',' ORDER BY k COLLATE "C")
            FROM jsonb_each(value) AS e(k, v)), '') || '}'
        WHEN 'array' THEN '[' || coalesce((
            SELECT string_agg(iap_canonical_json(v), ',' ORDER BY i)
            FROM jsonb_array_elements(value) WITH ORDINALITY AS a(v, i)), '') || ']'
        WHEN 'string' THEN to_json(value #>> '{}')::text
        ELSE value::text
    END;
END
$$;

-- The canonical JSON of an event: every field but the hashes, keys sorted, absent values as null.
-- docs/history.md describes it so that anyone can recompute the chain from an export.
CREATE FUNCTION history_canonical(e history_events) RETURNS text
LANGUAGE sql STABLE AS $$
    SELECT '{"action":' || iap_json_text(e.action::text)
        || ',"actor":{"keyId":' || iap_json_text(e.actor_key_id::text)
        || ',"name":' || iap_json_text(e.actor_name)
        || ',"role":' || iap_json_text(e.actor_role::text) || '}'
        || ',"app":' || iap_json_text(e.app)
        || ',"at":' || iap_json_text(to_char(e.at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'))
        || ',"chain":' || iap_json_text(e.chain)
        || ',"chainSeq":' || e.chain_seq::text
        || ',"changes":' || iap_canonical_json(e.changes)
        || ',"fromState":' || iap_json_text(e.from_state::text)
        || ',"kind":' || iap_json_text(e.kind::text)
        || ',"productId":' || iap_json_text(e.product_id)
        || ',"productVersion":' || coalesce(e.product_version::text, 'null')
        || ',"reason":' || iap_json_text(e.reason)
        || ',"requestId":' || iap_json_text(e.request_id)
        || ',"sequence":' || e.sequence::text
        || ',"toState":' || iap_json_text(e.to_state::text)
        || '}'
$$;

-- Links every new event into its chain, whoever inserts it: the chain head is locked for the rest of the
-- transaction, so concurrent writers of one app queue and never fork the chain, while other apps' writers
-- do not wait. The time is taken under that lock, so it never goes backwards within a chain.
CREATE FUNCTION history_link() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    head history_chains%ROWTYPE;
BEGIN
    NEW.chain := coalesce(NEW.app, '');
    INSERT INTO history_chains (chain, last_seq, last_hash)
        VALUES (NEW.chain, 0, decode(repeat('00', 32), 'hex'))
        ON CONFLICT (chain) DO NOTHING;
    SELECT * INTO head FROM history_chains WHERE chain = NEW.chain FOR UPDATE;
    NEW.at := clock_timestamp();
    NEW.chain_seq := head.last_seq + 1;
    NEW.previous_hash := head.last_hash;
    NEW.hash := sha256(head.last_hash || convert_to(history_canonical(NEW), 'UTF8'));
    UPDATE history_chains SET last_seq = NEW.chain_seq, last_hash = NEW.hash WHERE chain = NEW.chain;
    RETURN NEW;
END
$$;

CREATE TRIGGER history_link BEFORE INSERT ON history_events
    FOR EACH ROW EXECUTE FUNCTION history_link();

CREATE TRIGGER history_events_append_only BEFORE UPDATE OR DELETE ON history_events
    FOR EACH ROW EXECUTE FUNCTION refuse_change();
CREATE TRIGGER history_events_no_truncate BEFORE TRUNCATE ON history_events
    FOR EACH STATEMENT EXECUTE FUNCTION refuse_change();

-- The chain heads move only through history_link (trigger depth 2); nobody edits or drops them directly.
CREATE FUNCTION history_chains_guard() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP IN ('DELETE', 'TRUNCATE') OR pg_trigger_depth() < 2 THEN
        RAISE EXCEPTION USING ERRCODE = 'IC003', MESSAGE = format('history_chains moves only with history: %s refused', TG_OP);
    END IF;
    RETURN NEW;
END
$$;

CREATE TRIGGER history_chains_guard BEFORE UPDATE OR DELETE ON history_chains
    FOR EACH ROW EXECUTE FUNCTION history_chains_guard();
CREATE TRIGGER history_chains_no_truncate BEFORE TRUNCATE ON history_chains
    FOR EACH STATEMENT EXECUTE FUNCTION history_chains_guard();

-- Appends one event, given as the JSON the store writes (HistoryRecord): the one place that maps an event's
-- fields to columns, so that every write can record its event in the same statement as the change.
CREATE FUNCTION history_append(event jsonb) RETURNS bigint
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

-- No history event, no change: every product change must have its event (same version) by the end of the
-- statement that makes it. The store writes both in one statement. The check is immediate rather than at
-- commit because an error raised by an autocommit statement's implicit commit reaches no client (the
-- extended query protocol has already reported the statement complete); a transaction that needs to write
-- the event in a later statement can SET CONSTRAINTS products_require_history DEFERRED.
CREATE FUNCTION products_require_history() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    row_app text := CASE WHEN TG_OP = 'DELETE' THEN OLD.app ELSE NEW.app END;
    row_product text := CASE WHEN TG_OP = 'DELETE' THEN OLD.product_id ELSE NEW.product_id END;
    row_version integer := CASE WHEN TG_OP = 'DELETE' THEN OLD.version + 1 ELSE NEW.version END;
BEGIN
    IF NOT EXISTS (
        SELECT 1 FROM history_events
        WHERE app = row_app AND product_id = row_product AND product_version = row_version
    ) THEN
        RAISE EXCEPTION USING ERRCODE = 'IC004',
            MESSAGE = format('no history event for %s/%s version %s', row_app, row_product, row_version);
    END IF;
    RETURN NULL;
END
$$;

CREATE CONSTRAINT TRIGGER products_require_history AFTER INSERT OR UPDATE OR DELETE ON products
    DEFERRABLE INITIALLY IMMEDIATE FOR EACH ROW EXECUTE FUNCTION products_require_history();
