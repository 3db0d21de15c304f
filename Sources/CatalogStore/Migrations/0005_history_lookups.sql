-- history_link finds an app's chain head with `history_chains.chain = NEW.chain`. NEW.chain is
-- history_events.chain, `text COLLATE "C"`, while history_chains.chain had the database's default collation:
-- the comparison then uses "C" (an explicit collation wins over a default one) and the primary key, built
-- for the default collation, cannot answer it. Every event appended read the whole of history_chains, twice
-- (SELECT ... FOR UPDATE, then UPDATE): a cost that grew with the number of apps and, inside one
-- transaction, with every event it had appended. With the same collation on both sides the head is one
-- index lookup. Byte order ("C") is also what every other identifier column of the schema uses.
ALTER TABLE history_chains ALTER COLUMN chain TYPE text COLLATE "C";

-- Listings and exports filtered by a time window (`since`, `until`) with no narrower filter read the window
-- from this index instead of the whole history (seconds at 5 million events without it).
CREATE INDEX history_events_by_time ON history_events (at);

-- The horizon of a history listing (HistoryRepository.currentHorizon): a transaction id below which every
-- transaction that may write this database's history has finished, so that the events with a smaller txid
-- are a set that no longer changes and pages over it are stable. It was the snapshot's xmin, which is
-- cluster-wide: one long writing transaction in another database of the cluster (a migration, a bulk load)
-- held back every listing here, which then missed all newer events until it ended. Now only the running
-- transactions of this database count: those of the statement's snapshot (xids below its xmax) that
-- pg_stat_activity shows in this database. pg_stat_activity is read after the snapshot was taken, so a
-- transaction of the snapshot missing from it had finished by then. (Prepared two-phase transactions do not
-- appear there; the service does not use them.)
CREATE FUNCTION history_horizon() RETURNS xid8
LANGUAGE sql STABLE AS $$
    SELECT coalesce(min(running.xid), pg_snapshot_xmax(pg_current_snapshot()))
    FROM pg_snapshot_xip(pg_current_snapshot()) AS running (xid)
    WHERE (running.xid::text::numeric % 4294967296)::text IN
          (SELECT backend_xid::text FROM pg_stat_activity
           WHERE datname = current_database() AND backend_xid IS NOT NULL)
$$;
