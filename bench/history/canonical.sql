-- The canonical text of a recorded transaction's changes, written by iap_canonical_json (0036: the list in one pass)
-- and by iap_canonical_json_sorting_keys (a call per element, as before 0036), in turns, 5 times each over 2,000
-- lists of twelve changes shaped as ledger_changes makes them. Runs in any migrated database and changes nothing:
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
SELECT 'one pass' AS way, sum(length(iap_canonical_json(changes))) FROM recorded_changes;
SELECT 'a call per element' AS way, sum(length(iap_canonical_json_sorting_keys(changes))) FROM recorded_changes;
SELECT 'one pass' AS way, sum(length(iap_canonical_json(changes))) FROM recorded_changes;
SELECT 'a call per element' AS way, sum(length(iap_canonical_json_sorting_keys(changes))) FROM recorded_changes;
SELECT 'one pass' AS way, sum(length(iap_canonical_json(changes))) FROM recorded_changes;
SELECT 'a call per element' AS way, sum(length(iap_canonical_json_sorting_keys(changes))) FROM recorded_changes;
SELECT 'one pass' AS way, sum(length(iap_canonical_json(changes))) FROM recorded_changes;
SELECT 'a call per element' AS way, sum(length(iap_canonical_json_sorting_keys(changes))) FROM recorded_changes;
SELECT 'one pass' AS way, sum(length(iap_canonical_json(changes))) FROM recorded_changes;
SELECT 'a call per element' AS way, sum(length(iap_canonical_json_sorting_keys(changes))) FROM recorded_changes;
