-- The index of renewals by original transaction leads with the original transaction, not the environment
-- (issue 22's benchmark; docs/performance.md "Signed transactions").
--
-- As 0013 made it, (app, environment, original_transaction_id) began with the same two columns as the
-- ledger's key (app, environment, transaction_id). Before a table has statistics (a new database, until
-- autovacuum first analyzes it), the planner takes equality on app and environment for nearly unique and
-- picked this index for a lookup by key: it read every transaction of the app and environment to find one.
-- The lookups by key (ledger_merge's, and the foreign keys of ledger_sources and account_signals, whose plans
-- each connection keeps until the table is analyzed) then grew with the ledger: about 0.6 ms each at 2,600
-- transactions. Led by the original transaction, the index serves its own lookups as before (app,
-- environment and original_transaction_id given together, or app and original_transaction_id in a listing's
-- filter) and no longer passes for the key once the table holds more than a page or two. (On an empty table
-- every index costs the same to the planner; the first analyze replaces such plans.)
DROP INDEX ledger_transactions_by_original;
CREATE INDEX ledger_transactions_by_original ON ledger_transactions (app, original_transaction_id, environment);
