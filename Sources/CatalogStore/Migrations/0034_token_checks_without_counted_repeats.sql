-- Account tokens checked without counted repeats, and purchases' events kept out of the product-version index
-- (issue 22; docs/performance.md, "A new machine; token checks, ids, the signals' look-up").
--
-- iap_account_token_valid (the CHECK of three tables a signed transaction writes) and iap_account_key (the
-- ledger's account_key, the signals, the answers) run about six times per transaction. Their patterns count
-- repeats ([0-9a-f]{8}, {4}, {12}), which PostgreSQL's regular expressions run in about 2 µs each; a profile of
-- the signed-transaction benchmark had 5 % of PostgreSQL's time in them. The same forms are checked here in
-- three cheap parts, together exactly the patterns of 0023:
--   - LIKE with one `_` per character puts the hyphens where the form has them and fixes its length in characters;
--   - `^[0-9a-f-]+$` allows only lower-case hexadecimal digits and hyphens (so one byte per character);
--   - the length without hyphens (32 or 64) leaves no other hyphen, so every other character is a digit.
-- AccountLedgerTests checks both functions against 0023's patterns on valid tokens and near misses.
--
-- history_events_by_product_version (0009) serves products_require_history, which asks for a product's version
-- by equality; a purchase's events have no product version, and were about every second row it indexed. It now
-- holds only the events that have one (an equality on the version implies it is not null, so the check still
-- uses it).

CREATE OR REPLACE FUNCTION iap_account_token_valid(token text) RETURNS boolean
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
    RETURN token = ''
        OR (token COLLATE "C" LIKE '________-____-____-____-____________' AND token ~ '^[0-9a-f-]+$'
            AND octet_length(replace(token, '-', '')) = 32)
        OR (token COLLATE "C" LIKE '________-________-________-________-________-________-________-________'
            AND token ~ '^[0-9a-f-]+$' AND octet_length(replace(token, '-', '')) = 64);
END
$$;

CREATE OR REPLACE FUNCTION iap_account_key(token text) RETURNS uuid
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
    RETURN CASE
        WHEN token COLLATE "C" LIKE '________-____-____-____-____________' AND token ~ '^[0-9a-f-]+$'
             AND octet_length(replace(token, '-', '')) = 32 THEN token::uuid
        WHEN token COLLATE "C" LIKE '________-________-________-________-________-________-________-________'
             AND token ~ '^[0-9a-f-]+$' AND octet_length(replace(token, '-', '')) = 64
            THEN public.iap_uuid_v4_of(decode(replace(left(token, 35), '-', ''), 'hex'))
    END;
END
$$;

CREATE INDEX history_events_by_set_product_version ON history_events (app, product_id, product_version)
    WHERE product_version IS NOT NULL;
DROP INDEX history_events_by_product_version;
ALTER INDEX history_events_by_set_product_version RENAME TO history_events_by_product_version;
