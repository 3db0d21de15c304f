-- A batch of verified receipts written a statement per step, not per transaction (issue 22; docs/performance.md,
-- "Receipts: verified outcomes a statement per step"). 0023 did this for signed transactions; the rules are 0013's
-- and 0020's, unchanged.
--
-- purchases_record_verified ran, for each receipt of a batch, the submission's update, its key's lookup and its
-- receipt's deletion, and for each of its transactions ledger_merge: a lookup, an insert through ledger_new_row,
-- the source, the signals. Each is an executor start in PL/pgSQL (0023 says what that costs). Now the batch's
-- submissions are updated in one statement, the new transactions among their transactions recorded in one, their
-- sources in one, and the receipts deleted in one. ledger_merge still merges, one at a time in the batch's order,
-- every transaction whose first appearance in the batch the ledger already has, or which comes with no account
-- and no appAccountToken (it is credited to its original transaction's account, which may be recorded by this
-- batch: as in 0025, it is merged once the others are in), and every later appearance of a transaction in the
-- batch. So each transaction is recorded by its first appearance, as one at a time. The events are appended in
-- the order one at a time gave them: by receipt, by transaction within it, a transaction's event before its
-- signals. Locks: the batch's submissions, then its new transactions in the order of their key (the store sorts
-- the batch by it), then the merged ones in the batch's order, the app's chain head last.
CREATE OR REPLACE FUNCTION purchases_record_verified(items jsonb)
RETURNS TABLE (ordinal integer)
LANGUAGE plpgsql AS $$
DECLARE
    -- The items whose attempt still held its lease: their positions, submissions, accounts and actors.
    kept_positions integer[];
    kept_ids uuid[];
    kept_apps text[];
    kept_accounts text[];
    kept_actors jsonb[];
    -- The transactions recorded by the insert, with the position and index of the appearance that recorded each.
    recorded_positions integer[];
    recorded_indexes integer[];
    recorded_rows ledger_transactions[];
    -- Every event of the batch, with the position and index of the transaction that made it.
    event_positions integer[] := '{}';
    event_indexes integer[] := '{}';
    events jsonb[] := '{}';
    this_item jsonb;
    this_entry ledger_transactions;
    this_k integer;
    merged record;
    later record;
BEGIN
    WITH item AS (
        SELECT i.position::integer AS position, i.value AS body
        FROM jsonb_array_elements(items) WITH ORDINALITY AS i(value, position)),
    verified AS (
        UPDATE purchase_submissions s SET
            status = 'verified', environment = (item.body ->> 'environment')::store_environment,
            apple_status = (item.body ->> 'appleStatus')::integer,
            problems = coalesce(item.body -> 'problems', '[]'), next_attempt_at = NULL, lease_expires_at = NULL,
            updated_at = now(), finished_at = now()
        FROM item
        WHERE s.id = (item.body ->> 'submissionId')::uuid AND s.status = 'verifying'
          AND s.attempts = (item.body ->> 'attempts')::integer
        RETURNING item.position, s.id, s.app, s.account_token, s.key_id)
    SELECT coalesce(array_agg(v.position ORDER BY v.position), '{}'),
           coalesce(array_agg(v.id ORDER BY v.position), '{}'),
           coalesce(array_agg(v.app ORDER BY v.position), '{}'),
           coalesce(array_agg(v.account_token ORDER BY v.position), '{}'),
           coalesce(array_agg(CASE WHEN k.id IS NOT NULL
                                   THEN jsonb_build_object('keyId', k.id, 'name', k.name, 'role', k.role) END
                              ORDER BY v.position), '{}')
    INTO kept_positions, kept_ids, kept_apps, kept_accounts, kept_actors
    FROM verified v LEFT JOIN api_keys k ON k.id = v.key_id;

    -- Each transaction's first appearance in the batch, when the ledger lacks it and it comes with an account or
    -- an appAccountToken, recorded in one statement, in the order of the transactions' keys.
    WITH appearance AS (
        SELECT k.k, kept_positions[k.k] AS position, t.index::integer AS index, kept_apps[k.k] AS app,
               kept_accounts[k.k] AS account, t.facts,
               row_number() OVER (PARTITION BY kept_apps[k.k], t.facts ->> 'environment', t.facts ->> 'transactionId'
                                  ORDER BY kept_positions[k.k], t.index) AS nth
        FROM generate_subscripts(kept_positions, 1) AS k(k)
        CROSS JOIN LATERAL jsonb_array_elements(coalesce(items -> (kept_positions[k.k] - 1) -> 'transactions', '[]'))
            WITH ORDINALITY AS t(facts, index)),
    candidate AS (
        SELECT * FROM appearance a
        WHERE a.nth = 1 AND (a.account <> '' OR coalesce(a.facts ->> 'appAccountToken', '') <> '')),
    recorded AS (
        INSERT INTO ledger_transactions AS t (
            app, environment, transaction_id, original_transaction_id, product_id, apple_type, catalog_type,
            catalog_mismatch, quantity, purchase_date, original_purchase_date, expires_date, revocation_date,
            revocation_reason, price, currency, storefront, app_transaction_id, in_app_ownership_type,
            web_order_line_item_id, transaction_reason, account_token)
        SELECT n.*
        FROM candidate c CROSS JOIN LATERAL ledger_new_row(c.app, c.facts, c.account) AS n
        ORDER BY c.app, c.facts ->> 'environment', c.facts ->> 'transactionId'
        ON CONFLICT DO NOTHING
        RETURNING t.*)
    SELECT coalesce(array_agg(c.position ORDER BY c.position, c.index), '{}'),
           coalesce(array_agg(c.index ORDER BY c.position, c.index), '{}'),
           coalesce(array_agg(ROW(r.*)::ledger_transactions ORDER BY c.position, c.index), '{}')
    INTO recorded_positions, recorded_indexes, recorded_rows
    FROM recorded r JOIN candidate c
      ON c.app = r.app AND (c.facts ->> 'environment')::store_environment = r.environment
     AND c.facts ->> 'transactionId' = r.transaction_id;

    INSERT INTO ledger_sources (app, environment, transaction_id, source_kind, source_id, account_token, recorded)
    SELECT (recorded_rows[r]).app, (recorded_rows[r]).environment, (recorded_rows[r]).transaction_id, 'submission',
           kept_ids[array_position(kept_positions, recorded_positions[r])],
           kept_accounts[array_position(kept_positions, recorded_positions[r])], true
    FROM generate_subscripts(recorded_positions, 1) AS r
    ORDER BY r;

    FOR r IN 1 .. cardinality(recorded_positions) LOOP
        this_k := array_position(kept_positions, recorded_positions[r]);
        this_item := items -> (recorded_positions[r] - 1);
        this_entry := recorded_rows[r];
        event_positions := event_positions || recorded_positions[r];
        event_indexes := event_indexes || recorded_indexes[r];
        events := events || ledger_event('recorded', NULL, this_entry, 'submission', kept_ids[this_k],
                                         kept_actors[this_k], this_item ->> 'reason', this_item ->> 'requestId');
        SELECT ledger_signals(NULL, this_entry, kept_accounts[this_k],
                              this_item -> 'transactions' -> (recorded_indexes[r] - 1), 'submission', kept_ids[this_k],
                              kept_actors[this_k], this_item ->> 'requestId') AS signals
        INTO merged;
        event_positions := event_positions || array_fill(recorded_positions[r], ARRAY[cardinality(merged.signals)]);
        event_indexes := event_indexes || array_fill(recorded_indexes[r], ARRAY[cardinality(merged.signals)]);
        events := events || merged.signals;
    END LOOP;

    -- Every other appearance, merged one by one in the batch's order.
    FOR later IN
        SELECT k.k, kept_positions[k.k] AS position, t.index::integer AS index, t.facts
        FROM generate_subscripts(kept_positions, 1) AS k(k)
        CROSS JOIN LATERAL jsonb_array_elements(coalesce(items -> (kept_positions[k.k] - 1) -> 'transactions', '[]'))
            WITH ORDINALITY AS t(facts, index)
        WHERE NOT EXISTS (SELECT FROM unnest(recorded_positions, recorded_indexes) AS r(position, index)
                          WHERE r.position = kept_positions[k.k] AND r.index = t.index)
        ORDER BY k.k, t.index
    LOOP
        this_item := items -> (later.position - 1);
        SELECT * INTO merged FROM ledger_merge(
            kept_apps[later.k], later.facts, 'submission', kept_ids[later.k],
            kept_accounts[later.k], kept_actors[later.k], this_item ->> 'reason',
            this_item ->> 'requestId');
        IF merged.event IS NOT NULL THEN
            event_positions := event_positions || later.position;
            event_indexes := event_indexes || later.index;
            events := events || merged.event;
        END IF;
        event_positions := event_positions || array_fill(later.position, ARRAY[cardinality(merged.signals)]);
        event_indexes := event_indexes || array_fill(later.index, ARRAY[cardinality(merged.signals)]);
        events := events || merged.signals;
    END LOOP;

    DELETE FROM submission_receipts r WHERE r.submission_id = ANY (kept_ids);

    RETURN QUERY SELECT unnest(kept_positions);
    PERFORM set_config('iap.history_bulk', 'on', true);
    PERFORM history_append_all(ARRAY(
        SELECT e.event
        FROM unnest(event_positions, event_indexes, events) WITH ORDINALITY AS e(position, index, event, arrival)
        ORDER BY e.position, e.index, e.arrival));
END
$$;
