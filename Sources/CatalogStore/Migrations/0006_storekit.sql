-- Xcode StoreKit configuration files (.storekit): import and export (docs/storekit.md).
--
-- 1. What a file says that the catalog does not model is kept so that an export gives it back: per product
--    (internal ids, promotional, offer-code and win-back offers, billing plans, unknown keys, the file's
--    spelling and order of localizations, groupNumber), per subscription group (its file id, unknown keys,
--    localization descriptions) and per app (the file's identifier, version, settings, app policies, offer
--    signing key and unknown top-level keys, from the latest import). None of it is a reviewed field and none
--    of it is served by the catalog's own API: it is file data, written by imports only.
-- 2. An auto-renewable subscription's localized description may hold 55 characters (App Store Connect's limit
--    for subscriptions); other types keep 45. The CHECK constraint learns the product's type.
-- 3. Statements that write thousands of products (an import of 10,000 in one transaction) take seconds, not
--    minutes, with the same rules:
--    - the product count and the productId reservations are kept per statement (transition tables) rather
--      than per row: a row trigger updated the app's row once per product, and every update of one row in one
--      transaction walks all of that row's earlier versions;
--    - history_link finds the chain head it updated last in this transaction by its tuple id instead of
--      walking the head's versions through the index, for the same reason (a head it cannot find that way,
--      or one that is not the chain's current head, is found as before);
--    - products_require_history always uses the index on history events (planned against a new, small table
--      it scanned the whole table once per product);
--    - iap_canonical_json writes the same text as before without running a query per JSON value: it ran one
--      for every value in every event's changes, dozens per imported product, three quarters of an import's
--      time.

ALTER TABLE products ADD COLUMN storekit jsonb CHECK (jsonb_typeof(storekit) = 'object');
ALTER TABLE subscription_groups ADD COLUMN storekit jsonb CHECK (jsonb_typeof(storekit) = 'object');

CREATE TABLE storekit_files (
    app         text COLLATE "C" PRIMARY KEY REFERENCES apps (bundle_id),
    -- The name the file was imported under, as the importer gave it.
    file_name   text CHECK (char_length(file_name) BETWEEN 1 AND 255),
    -- The file without its products and groups. It may hold subscriptionOffersKeyPair, Xcode's throwaway key
    -- for signing promotional offers in local tests: kept for the export, never logged.
    document    jsonb NOT NULL CHECK (jsonb_typeof(document) = 'object'),
    imported_at timestamptz NOT NULL DEFAULT now()
);

-- Whether a localizations array keeps App Store Connect's limits for a product of `product_type`.
CREATE FUNCTION iap_localizations_valid(localizations jsonb, product_type purchase_type) RETURNS boolean
LANGUAGE sql IMMUTABLE AS $$
    SELECT jsonb_typeof(localizations) = 'array'
       AND jsonb_array_length(localizations) <= 100
       AND NOT EXISTS (
           SELECT 1 FROM jsonb_array_elements(localizations) AS l(item)
           WHERE jsonb_typeof(item) <> 'object'
              OR coalesce(char_length(item ->> 'displayName'), 0) NOT BETWEEN 2 AND 30
              OR coalesce(char_length(item ->> 'description'), 0)
                     NOT BETWEEN 1 AND CASE WHEN product_type = 'AUTO_RENEWABLE_SUBSCRIPTION' THEN 55 ELSE 45 END
              OR coalesce(item ->> 'locale', '') !~ '^[a-z]{2,3}(-[A-Z][a-z]{3})?(-([A-Z]{2}|[0-9]{3}))?$'
       )
$$;

ALTER TABLE products DROP CONSTRAINT products_localizations_check;
ALTER TABLE products ADD CONSTRAINT products_localizations_check CHECK (iap_localizations_valid(localizations, type));

-- Product count and reservations, per statement.
CREATE FUNCTION products_count_and_reserve_rows() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO product_id_reservations (app, product_id) SELECT app, product_id FROM inserted;
        UPDATE apps SET product_count = product_count + counted.products
        FROM (SELECT app, count(*)::integer AS products FROM inserted GROUP BY app) AS counted
        WHERE apps.bundle_id = counted.app;
    ELSE
        UPDATE apps SET product_count = product_count - counted.products
        FROM (SELECT app, count(*)::integer AS products FROM deleted GROUP BY app) AS counted
        WHERE apps.bundle_id = counted.app;
    END IF;
    RETURN NULL;
END
$$;

DROP TRIGGER products_count_and_reserve ON products;
DROP FUNCTION products_count_and_reserve();
CREATE TRIGGER products_count_and_reserve_inserted AFTER INSERT ON products
    REFERENCING NEW TABLE AS inserted FOR EACH STATEMENT EXECUTE FUNCTION products_count_and_reserve_rows();
CREATE TRIGGER products_count_and_reserve_deleted AFTER DELETE ON products
    REFERENCING OLD TABLE AS deleted FOR EACH STATEMENT EXECUTE FUNCTION products_count_and_reserve_rows();

-- The history check by index, however small the table was when its plan was made.
ALTER FUNCTION products_require_history() SET enable_seqscan = off;

-- The chain head by tuple id. The transaction-local setting names the chain and the tuple its last event
-- wrote; whatever it says, the row is used only if it is that chain's head as this transaction sees it (locked
-- FOR UPDATE as before), otherwise the head is found by its key as before. The linking itself is unchanged.
CREATE OR REPLACE FUNCTION history_link() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE
    cached text := current_setting('iap.history_chain_head', true);
    head_tuple tid;
    head_seq bigint;
    head_hash bytea;
BEGIN
    NEW.chain := coalesce(NEW.app, '');
    IF starts_with(cached, NEW.chain || '|') AND substr(cached, length(NEW.chain) + 2) ~ '^\([0-9]+,[0-9]+\)$' THEN
        SELECT ctid, last_seq, last_hash INTO head_tuple, head_seq, head_hash FROM history_chains
        WHERE ctid = substr(cached, length(NEW.chain) + 2)::tid AND chain = NEW.chain FOR UPDATE;
    END IF;
    IF head_tuple IS NULL THEN
        INSERT INTO history_chains (chain, last_seq, last_hash)
            VALUES (NEW.chain, 0, decode(repeat('00', 32), 'hex'))
            ON CONFLICT (chain) DO NOTHING;
        SELECT ctid, last_seq, last_hash INTO head_tuple, head_seq, head_hash FROM history_chains
        WHERE chain = NEW.chain FOR UPDATE;
    END IF;
    NEW.sequence := nextval('history_sequence');
    NEW.txid := pg_current_xact_id();
    NEW.at := date_trunc('milliseconds', clock_timestamp());
    NEW.chain_seq := head_seq + 1;
    NEW.previous_hash := head_hash;
    NEW.hash := sha256(head_hash || convert_to(history_canonical(NEW), 'UTF8'));
    UPDATE history_chains SET last_seq = NEW.chain_seq, last_hash = NEW.hash WHERE ctid = head_tuple
        RETURNING ctid INTO head_tuple;
    PERFORM set_config('iap.history_chain_head', NEW.chain || '|' || head_tuple::text, true);
    RETURN NEW;
END
$$;

-- The canonical text of a JSON value, exactly as 0001 defines it (no insignificant whitespace, object keys in
-- code point order, scalars as jsonb writes them), built with plain expressions: PL/pgSQL evaluates those
-- without starting a query, where 0001's version ran a query for every value, nested ones included. The keys
-- come in jsonb's order (by length, then bytes); an insertion sort puts the few keys of an object in code point
-- order, and a query sorts an object with many. HistoryChainTests checks this against 0001's version.
CREATE OR REPLACE FUNCTION iap_canonical_json(value jsonb) RETURNS text
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
    keys text[];
    key_list jsonb;
    next_key text;
    item jsonb;
    result text := '';
    j integer;
BEGIN
    CASE jsonb_typeof(value)
    WHEN 'array' THEN
        FOR i IN 0 .. jsonb_array_length(value) - 1 LOOP
            item := value -> i;
            IF i > 0 THEN
                result := result || ',';
            END IF;
            IF jsonb_typeof(item) IN ('object', 'array') THEN
                result := result || iap_canonical_json(item);
            ELSE
                result := result || item::text;
            END IF;
        END LOOP;
        RETURN '[' || result || ']';
    WHEN 'object' THEN
        key_list := jsonb_path_query_array(value, '$.keyvalue().key');
        IF jsonb_array_length(key_list) > 32 THEN
            keys := ARRAY(SELECT k FROM jsonb_object_keys(value) AS k ORDER BY k COLLATE "C");
        ELSE
            keys := '{}';
            FOR i IN 1 .. jsonb_array_length(key_list) LOOP
                next_key := key_list ->> (i - 1);
                j := i - 1;
                WHILE j > 0 AND keys[j] COLLATE "C" > next_key COLLATE "C" LOOP
                    keys[j + 1] := keys[j];
                    j := j - 1;
                END LOOP;
                keys[j + 1] := next_key;
            END LOOP;
        END IF;
        FOR i IN 1 .. coalesce(array_length(keys, 1), 0) LOOP
            item := value -> keys[i];
            IF i > 1 THEN
                result := result || ',';
            END IF;
            result := result || to_json(keys[i])::text || ':';
            IF jsonb_typeof(item) IN ('object', 'array') THEN
                result := result || iap_canonical_json(item);
            ELSE
                result := result || item::text;
            END IF;
        END LOOP;
        RETURN '{' || result || '}';
    ELSE
        -- A string as jsonb writes it is to_json's escaping, 0001's; null, numbers and booleans as they are.
        RETURN value::text;
    END CASE;
END
$$;

DO $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'iap_service') THEN
        RETURN;
    END IF;
    GRANT SELECT, INSERT, UPDATE ON storekit_files TO iap_service;
END
$$;
