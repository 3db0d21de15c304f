-- What the auditors' queries need of the history.
--
-- 1. The global sequence is taken under the chain lock (in history_link), so that within an app the order of
--    `sequence` is the order of the chain. An identity column would be numbered before the lock is taken.
-- 2. Each event records the transaction that wrote it (`txid`). A listing reads only events of transactions
--    that had finished when its first page was asked for (below that moment's snapshot xmin): that set never
--    changes, so keyset pages over it never repeat or skip an event, whatever is written meanwhile.
-- 3. Times are taken to the millisecond, which every client's clock type holds exactly; the canonical form
--    still writes six fraction digits, so events written before this migration verify unchanged.
-- 4. Indexes for the filters: per app, per product (exists), per actor.

CREATE SEQUENCE history_sequence;
SELECT setval('history_sequence', greatest(coalesce((SELECT max(sequence) FROM history_events), 0), 1),
              (SELECT count(*) > 0 FROM history_events));
ALTER TABLE history_events ALTER COLUMN sequence DROP IDENTITY;

-- Events written before this migration were committed long before any listing: they get transaction 0.
-- (A constant default fills the column without updating rows, which the append-only triggers would refuse.)
ALTER TABLE history_events ADD COLUMN txid xid8 NOT NULL DEFAULT '0';
ALTER TABLE history_events ALTER COLUMN txid DROP DEFAULT;

CREATE OR REPLACE FUNCTION history_link() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    head history_chains%ROWTYPE;
BEGIN
    NEW.chain := coalesce(NEW.app, '');
    INSERT INTO history_chains (chain, last_seq, last_hash)
        VALUES (NEW.chain, 0, decode(repeat('00', 32), 'hex'))
        ON CONFLICT (chain) DO NOTHING;
    SELECT * INTO head FROM history_chains WHERE chain = NEW.chain FOR UPDATE;
    NEW.sequence := nextval('history_sequence');
    NEW.txid := pg_current_xact_id();
    NEW.at := date_trunc('milliseconds', clock_timestamp());
    NEW.chain_seq := head.last_seq + 1;
    NEW.previous_hash := head.last_hash;
    NEW.hash := sha256(head.last_hash || convert_to(history_canonical(NEW), 'UTF8'));
    UPDATE history_chains SET last_seq = NEW.chain_seq, last_hash = NEW.hash WHERE chain = NEW.chain;
    RETURN NEW;
END
$$;

CREATE INDEX history_events_by_app ON history_events (app, sequence);
CREATE INDEX history_events_by_actor_key ON history_events (actor_key_id, sequence);
CREATE INDEX history_events_by_actor_name ON history_events (actor_name, sequence);
