-- The canonical text of a recorded transaction's changes, written by iap_canonical_json (0036: the list in one pass)
-- and by iap_canonical_json_sorting_keys (a call per element, as before 0036), in turns, 5 times each over 2,000
-- lists of twelve changes shaped as ledger_changes makes them; then the same in the history's trigger (below). Runs
-- in any migrated database as the role that migrated it, and leaves nothing behind (the trigger's part rolls back):
--
--   psql -X "$DATABASE_URL" -f bench/history/canonical.sql
\timing on
CREATE TEMP TABLE recorded_changes AS
SELECT jsonb_build_array(
    jsonb_build_object('field', 'transactionId', 'new', (2000000000000000 + n)::text),
    jsonb_build_object('field', 'environment', 'new', 'Production'),
    jsonb_build_object('field', 'originalTransactionId', 'new', (2000000000000000 + n)::text),
    jsonb_build_object('field', 'quantity', 'new', 1),
    jsonb_build_object('field', 'purchaseDate', 'new', '2026-11-19T09:47:25.132Z'),
    jsonb_build_object('field', 'price', 'new', 3990),
    jsonb_build_object('field', 'currency', 'new', 'USD'),
    jsonb_build_object('field', 'storefront', 'new', 'USA'),
    jsonb_build_object('field', 'appleType', 'new', 'Consumable'),
    jsonb_build_object('field', 'catalogMismatch', 'new', false),
    jsonb_build_object('field', 'accountToken', 'new', md5(n::text)::uuid::text),
    jsonb_build_object('field', 'submissionId', 'new', md5((-n)::text)::uuid::text)) AS changes
FROM generate_series(1, 2000) AS n;
-- Both write the same text (0 lists differ).
SELECT count(*) AS lists_that_differ FROM recorded_changes
WHERE iap_canonical_json(changes) <> iap_canonical_json_sorting_keys(changes);
\set one_pass 'SELECT ''one pass'' AS way, sum(length(iap_canonical_json(changes))) FROM recorded_changes;'
\set per_element 'SELECT ''a call per element'' AS way, sum(length(iap_canonical_json_sorting_keys(changes))) FROM recorded_changes;'
:one_pass :per_element
:one_pass :per_element
:one_pass :per_element
:one_pass :per_element
:one_pass :per_element

-- The same in the history's trigger: 100 statements of history_append_all, each 27 recorded transactions' events
-- (2,700 events), in a transaction rolled back, as 0036 has it and with 0028's function (a call per element)
-- put back inside the transaction; three turns each.
CREATE TEMP TABLE recorded_events AS
SELECT jsonb_build_object('app', 'com.bench.canonical', 'productId', 'gems', 'kind', 'transaction_recorded',
                          'actor', '{"name": "bench", "role": "client"}'::jsonb, 'requestId', 'req-' || n,
                          'changes', changes) AS event
FROM (SELECT changes, row_number() OVER () AS n FROM recorded_changes LIMIT 27) AS recorded;
\set append 'INSERT INTO apps (bundle_id, name, primary_locale) VALUES (''com.bench.canonical'', ''Bench'', ''en-US''); SET LOCAL iap.history_bulk = on; SELECT count(*) AS events FROM (SELECT history_append_all(ARRAY(SELECT event FROM recorded_events)) FROM generate_series(1, 100)) AS appended;'
\set before0036 'CREATE OR REPLACE FUNCTION iap_canonical_json(value jsonb) RETURNS text LANGUAGE plpgsql IMMUTABLE AS $$ BEGIN IF jsonb_typeof(value) = ''object'' AND value - ''{field,new,old}''::text[] = ''{}''::jsonb AND coalesce(jsonb_typeof(value -> ''field''), ''null'') NOT IN (''object'', ''array'') AND coalesce(jsonb_typeof(value -> ''new''), ''null'') NOT IN (''object'', ''array'') AND coalesce(jsonb_typeof(value -> ''old''), ''null'') NOT IN (''object'', ''array'') THEN RETURN ''{'' || concat_ws('','', ''"field":'' || (value -> ''field'')::text, ''"new":'' || (value -> ''new'')::text, ''"old":'' || (value -> ''old'')::text) || ''}''; END IF; RETURN iap_canonical_json_sorting_keys(value); END $$;'
BEGIN; SELECT 'one pass' AS way; :append ROLLBACK;
BEGIN; SELECT 'a call per element' AS way; :before0036 :append ROLLBACK;
BEGIN; SELECT 'one pass' AS way; :append ROLLBACK;
BEGIN; SELECT 'a call per element' AS way; :before0036 :append ROLLBACK;
BEGIN; SELECT 'one pass' AS way; :append ROLLBACK;
BEGIN; SELECT 'a call per element' AS way; :before0036 :append ROLLBACK;
