-- A batch finds its submissions by their keys, not by reading the whole table (issue 22; docs/performance.md,
-- "Batches that read every submission").
--
-- Four statements joined a batch's items (jsonb_array_elements) with purchase_submissions: the answers of
-- purchases_record_signed and purchases_queue_receipts (by app, account and proof), and the updates of
-- purchases_record_verified and receipt_queue_record (by id). The planner takes a set function's rows for 100.
-- Against a table of a few thousand rows, 100 lookups by an index cost it more than reading the table once into a
-- hash, so it read every submission for each batch: until the table held about 20,000 rows, each batch cost more
-- as the table grew. A statement's plan is kept by its connection, and the benchmark's databases, like every new
-- deployment's, start empty.
--
-- Now each item finds its submission by the unique index: the answers in a lateral subquery, which the LIMIT keeps
-- from being folded into a join, shared by both intake functions (purchase_batch_answers); the updates by their
-- ids as an array (`s.id = ANY (…)`), which only the primary key's index can answer. The functions are 0025's,
-- 0023's, 0027's and 0016's, with only those statements changed. IntakeBatchTests has the test: no batch reads
-- purchase_submissions whole, with 5,000 submissions in it.

-- Each item's answer, by its position (from 1): whether `made_positions` holds it (its submission is new), and its
-- submission as purchase_submission_answer gives it.
CREATE FUNCTION purchase_batch_answers(items jsonb, made_positions integer[])
RETURNS TABLE (ordinal integer, created boolean, submission jsonb)
LANGUAGE sql STABLE AS $$
    SELECT i.position::integer, i.position::integer = ANY (made_positions), a.answer
    FROM jsonb_array_elements(items) WITH ORDINALITY AS i(value, position)
    -- The unique key (app, account_token, proof_sha256) finds one row at most; LIMIT 1 says so to the planner.
    CROSS JOIN LATERAL (
        SELECT s AS row FROM purchase_submissions s
        WHERE s.app = i.value ->> 'app' AND s.account_token = coalesce(i.value ->> 'accountToken', '')
          AND s.proof_sha256 = decode(i.value ->> 'proofSha256', 'hex')
        LIMIT 1) AS found
    CROSS JOIN LATERAL purchase_submission_answer(found.row) AS a
$$;

-- 0025's purchases_record_signed; its answers from purchase_batch_answers.
CREATE OR REPLACE FUNCTION purchases_record_signed(items jsonb)
RETURNS TABLE (ordinal integer, created boolean, submission jsonb)
LANGUAGE plpgsql AS $$
DECLARE
    -- The items whose submission is new: their positions and submissions.
    made_positions integer[];
    made_ids uuid[];
    -- Of those, the ones that recorded a new transaction, and the rows recorded.
    recorded_positions integer[];
    recorded_rows ledger_transactions[];
    -- Every event of the batch, with the position of the item that made it.
    event_positions integer[] := '{}';
    events jsonb[] := '{}';
    this_item jsonb;
    this_entry ledger_transactions;
    this_position integer;
    merged record;
BEGIN
    WITH item AS (
        SELECT i.position::integer AS position, i.value AS body
        FROM jsonb_array_elements(items) WITH ORDINALITY AS i(value, position)),
    made AS (
        INSERT INTO purchase_submissions AS s (app, key_id, account_token, kind, proof_sha256, status, environment,
                                               attempts, finished_at)
        SELECT item.body ->> 'app', (item.body ->> 'keyId')::uuid, coalesce(item.body ->> 'accountToken', ''),
               'signed_transaction', decode(item.body ->> 'proofSha256', 'hex'), 'verified',
               (item.body ->> 'environment')::store_environment, 1, now()
        FROM item ORDER BY item.position
        ON CONFLICT (app, account_token, proof_sha256) DO NOTHING
        RETURNING s.id, s.app, s.account_token, s.proof_sha256),
    -- An item of the batch that repeats an earlier one's proof and account finds the earlier one's submission.
    first AS (
        SELECT DISTINCT ON (made.id) item.position, made.id
        FROM made JOIN item
          ON item.body ->> 'app' = made.app AND coalesce(item.body ->> 'accountToken', '') = made.account_token
         AND decode(item.body ->> 'proofSha256', 'hex') = made.proof_sha256
        ORDER BY made.id, item.position)
    SELECT coalesce(array_agg(first.position ORDER BY first.position), '{}'),
           coalesce(array_agg(first.id ORDER BY first.position), '{}')
    INTO made_positions, made_ids
    FROM first;

    -- The new submissions' transactions the ledger does not have, recorded in one statement; a transaction that
    -- two of them bring is recorded by the first. One that comes with no account and no appAccountToken is
    -- merged below instead, once the others are in the ledger: it is credited to the account of its original
    -- transaction, which may be in this batch.
    WITH made AS (
        SELECT m.position, items -> (m.position - 1) AS body
        FROM unnest(made_positions) AS m(position)
        WHERE coalesce(items -> (m.position - 1) ->> 'accountToken', '') <> ''
           OR coalesce(items -> (m.position - 1) -> 'facts' ->> 'appAccountToken', '') <> ''),
    recorded AS (
        INSERT INTO ledger_transactions AS t (
            app, environment, transaction_id, original_transaction_id, product_id, apple_type, catalog_type,
            catalog_mismatch, quantity, purchase_date, original_purchase_date, expires_date, revocation_date,
            revocation_reason, price, currency, storefront, app_transaction_id, in_app_ownership_type,
            web_order_line_item_id, transaction_reason, account_token)
        SELECT n.*
        FROM made CROSS JOIN LATERAL ledger_new_row(made.body ->> 'app', made.body -> 'facts',
                                                    coalesce(made.body ->> 'accountToken', '')) AS n
        ORDER BY made.position
        ON CONFLICT DO NOTHING
        RETURNING t.*),
    first AS (
        SELECT DISTINCT ON (recorded.app, recorded.environment, recorded.transaction_id)
               made.position, ROW(recorded.*)::ledger_transactions AS entry
        FROM recorded JOIN made
          ON made.body ->> 'app' = recorded.app
         AND (made.body -> 'facts' ->> 'environment')::store_environment = recorded.environment
         AND made.body -> 'facts' ->> 'transactionId' = recorded.transaction_id
        ORDER BY recorded.app, recorded.environment, recorded.transaction_id, made.position)
    SELECT coalesce(array_agg(first.position ORDER BY first.position), '{}'),
           coalesce(array_agg(first.entry ORDER BY first.position), '{}')
    INTO recorded_positions, recorded_rows
    FROM first;

    INSERT INTO ledger_sources (app, environment, transaction_id, source_kind, source_id, account_token, recorded)
    SELECT (recorded_rows[k]).app, (recorded_rows[k]).environment, (recorded_rows[k]).transaction_id, 'submission',
           made_ids[array_position(made_positions, recorded_positions[k])],
           coalesce(items -> (recorded_positions[k] - 1) ->> 'accountToken', ''), true
    FROM generate_subscripts(recorded_positions, 1) AS k
    ORDER BY k;

    FOR k IN 1 .. cardinality(recorded_positions) LOOP
        this_position := recorded_positions[k];
        this_item := items -> (this_position - 1);
        this_entry := recorded_rows[k];
        event_positions := event_positions || this_position;
        events := events || ledger_event('recorded', NULL, this_entry, 'submission',
                                         made_ids[array_position(made_positions, this_position)],
                                         this_item -> 'actor', this_item ->> 'reason', this_item ->> 'requestId');
        SELECT ledger_signals(NULL, this_entry, coalesce(this_item ->> 'accountToken', ''), this_item -> 'facts',
                              'submission', made_ids[array_position(made_positions, this_position)],
                              this_item -> 'actor', this_item ->> 'requestId') AS signals
        INTO merged;
        event_positions := event_positions || array_fill(this_position, ARRAY[cardinality(merged.signals)]);
        events := events || merged.signals;
    END LOOP;

    -- The new submissions whose transaction the ledger had: merged one by one, in the batch's order.
    FOR k IN 1 .. cardinality(made_positions) LOOP
        this_position := made_positions[k];
        CONTINUE WHEN this_position = ANY (recorded_positions);
        this_item := items -> (this_position - 1);
        SELECT * INTO merged FROM ledger_merge(
            this_item ->> 'app', this_item -> 'facts', 'submission', made_ids[k],
            coalesce(this_item ->> 'accountToken', ''), this_item -> 'actor', this_item ->> 'reason',
            this_item ->> 'requestId');
        IF merged.event IS NOT NULL THEN
            event_positions := event_positions || this_position;
            events := events || merged.event;
        END IF;
        event_positions := event_positions || array_fill(this_position, ARRAY[cardinality(merged.signals)]);
        events := events || merged.signals;
    END LOOP;

    -- The answers first (RETURN QUERY adds rows and goes on): the chain head is held from the first event to
    -- the commit, and no other batch of the app can append meanwhile.
    RETURN QUERY
        SELECT * FROM purchase_batch_answers(items, made_positions);
    PERFORM set_config('iap.history_bulk', 'on', true);
    PERFORM history_append_all(ARRAY(
        SELECT e.event FROM unnest(event_positions, events) WITH ORDINALITY AS e(position, event, arrival)
        ORDER BY e.position, e.arrival));
END
$$;

-- 0023's purchases_queue_receipts; its answers from purchase_batch_answers.
CREATE OR REPLACE FUNCTION purchases_queue_receipts(items jsonb)
RETURNS TABLE (ordinal integer, created boolean, submission jsonb)
LANGUAGE plpgsql AS $$
DECLARE
    made_positions integer[];
BEGIN
    WITH item AS (
        SELECT i.position::integer AS position, i.value AS body
        FROM jsonb_array_elements(items) WITH ORDINALITY AS i(value, position)),
    made AS (
        INSERT INTO purchase_submissions AS s (app, key_id, account_token, kind, proof_sha256, status,
                                               next_attempt_at)
        SELECT item.body ->> 'app', (item.body ->> 'keyId')::uuid, coalesce(item.body ->> 'accountToken', ''),
               'receipt', decode(item.body ->> 'proofSha256', 'hex'), 'queued', now()
        FROM item ORDER BY item.position
        ON CONFLICT (app, account_token, proof_sha256) DO NOTHING
        RETURNING s.id, s.app, s.account_token, s.proof_sha256),
    -- An item of the batch that repeats an earlier one's proof and account finds the earlier one's submission.
    first AS (
        SELECT DISTINCT ON (made.id) item.position, made.id, item.body ->> 'receipt' AS receipt
        FROM made JOIN item
          ON item.body ->> 'app' = made.app AND coalesce(item.body ->> 'accountToken', '') = made.account_token
         AND decode(item.body ->> 'proofSha256', 'hex') = made.proof_sha256
        ORDER BY made.id, item.position),
    stored AS (
        INSERT INTO submission_receipts (submission_id, receipt)
        SELECT first.id, first.receipt FROM first)
    SELECT coalesce(array_agg(first.position), '{}') INTO made_positions FROM first;

    RETURN QUERY
        SELECT * FROM purchase_batch_answers(items, made_positions);
END
$$;

-- 0027's purchases_record_verified; the batch's submissions updated by their ids.
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
        WHERE s.id = ANY (ARRAY(SELECT (i.value ->> 'submissionId')::uuid FROM jsonb_array_elements(items) AS i))
          AND s.id = (item.body ->> 'submissionId')::uuid AND s.status = 'verifying'
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

-- 0016's receipt_queue_record; the batch's submissions updated by their ids.
CREATE OR REPLACE FUNCTION receipt_queue_record(items jsonb)
RETURNS TABLE (ordinal integer)
LANGUAGE plpgsql AS $$
DECLARE
    verified jsonb;
BEGIN
    RETURN QUERY
    WITH outcome AS (
        SELECT i.position::integer AS position, i.value AS body
        FROM jsonb_array_elements(items) WITH ORDINALITY AS i(value, position)
        WHERE i.value ->> 'status' IN ('invalid', 'retrying', 'failed')
    ), recorded AS (
        UPDATE purchase_submissions s SET
            status = (o.body ->> 'status')::submission_status,
            environment = coalesce((o.body ->> 'environment')::store_environment, s.environment),
            apple_status = (o.body ->> 'appleStatus')::integer,
            problems = coalesce(o.body -> 'problems', '[]'),
            malformed_answers = s.malformed_answers
                + CASE WHEN coalesce((o.body ->> 'malformed')::boolean, false) THEN 1 ELSE 0 END,
            next_attempt_at = CASE WHEN o.body ->> 'status' = 'retrying'
                                   THEN (o.body ->> 'nextAttemptAt')::timestamptz END,
            lease_expires_at = NULL,
            updated_at = now(),
            finished_at = CASE WHEN o.body ->> 'status' <> 'retrying' THEN now() END
        FROM outcome o
        WHERE s.id = ANY (ARRAY(SELECT (i.value ->> 'submissionId')::uuid FROM jsonb_array_elements(items) AS i))
          AND s.id = (o.body ->> 'submissionId')::uuid AND s.status = 'verifying'
          AND s.attempts = (o.body ->> 'attempts')::integer
        RETURNING o.position, s.id, s.status
    ), forgotten AS (
        DELETE FROM submission_receipts r USING recorded
        WHERE r.submission_id = recorded.id AND recorded.status = 'invalid'
    )
    SELECT recorded.position FROM recorded;

    SELECT jsonb_agg(i.value || jsonb_build_object('ordinal', i.position) ORDER BY i.position) INTO verified
    FROM jsonb_array_elements(items) WITH ORDINALITY AS i(value, position)
    WHERE i.value ->> 'status' = 'verified';
    IF verified IS NOT NULL THEN
        -- purchases_record_verified answers positions in `verified`; each item there carries its own in `items`.
        RETURN QUERY
        SELECT (verified -> (v.ordinal - 1) ->> 'ordinal')::integer FROM purchases_record_verified(verified) AS v;
    END IF;
END
$$;
