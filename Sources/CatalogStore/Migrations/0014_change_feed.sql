-- What the change feed (CatalogChanges, docs/decisions.md "One change feed") needs to read history events in
-- sequence order without ever skipping one.
--
-- Sequence numbers are handed out before their transactions commit, and transactions commit in any order: a
-- reader that has read up to 11 may later see 10 appear, committed by a transaction that was slower. A reader
-- must therefore stop before any number that may still appear. history_mark() gives the two facts that tell
-- where that is:
--
--   assigned  the last sequence number handed out (0 before the first);
--   running   the transactions of this database running after `assigned` was read (their xids, as text).
--
-- history_link locks the chain head before it takes a number, and a lock gives the transaction its xid, so a
-- transaction that holds a number up to `assigned` had its xid before `assigned` was read: it is either finished
-- or in `running`. Once none of `running` still runs (a later call's `running` has none of them), every event
-- numbered up to `assigned` is committed, and visible to any later statement, or never will be (rolled back).
-- The feed keeps the marks not yet settled and reads only up to the newest settled one. When nothing runs, a
-- mark is settled at once.
--
-- Transactions of other databases of the cluster cannot write this history and are not counted; prepared
-- (two-phase) transactions do not appear in pg_stat_activity, and the service does not use them (as in
-- history_horizon, migration 0005). history_sequence must hand out numbers one at a time (CACHE 1, as it was
-- made in 0002): with a cache a backend would hold numbers beyond `assigned` before it uses them.
--
-- The function runs with the owner's rights: the service may not read the sequence itself. It is read first,
-- and pg_stat_activity only after, from a fresh copy (a transaction otherwise reuses the one it read first).

CREATE FUNCTION history_mark(OUT assigned bigint, OUT running text[])
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    assigned := coalesce(pg_sequence_last_value('public.history_sequence'), 0);
    PERFORM pg_stat_clear_snapshot();
    running := ARRAY(SELECT backend_xid::text FROM pg_stat_activity
                     WHERE datname = current_database() AND backend_xid IS NOT NULL);
END
$$;
