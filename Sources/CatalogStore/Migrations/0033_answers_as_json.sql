-- A batch's answers written as json, not jsonb (issue 22; docs/performance.md, "Answers written as json").
--
-- Each item of a signed transaction's or a receipt's batch is answered with its submission and the ledger rows it
-- brought, as JSON the server reads (PurchaseRowJSON). purchase_submission_answer made it with to_jsonb: each row
-- turned into a jsonb value (every object's keys sorted), two keys removed and one object added (each a copy),
-- then the whole written out as text. Nothing needs jsonb there: the answer is written once and read by the
-- server. row_to_json over the same columns writes the text directly: 20 µs an answer instead of 41, in a loop
-- over 5,000 of the benchmark's submissions, about a tenth of PostgreSQL's time for a signed transaction.
--
-- A function's result type cannot be replaced, so the answer's functions are dropped and made again, and so are
-- the two intake functions that return their rows: 0029's bodies, with `json` where they said `jsonb` for the
-- answer, and 0030's setting. The answer holds the columns the server reads (not proof_sha256, account_key or
-- malformed_answers, as before).
DROP FUNCTION purchases_record_signed(jsonb);
DROP FUNCTION purchases_queue_receipts(jsonb);
DROP FUNCTION purchase_batch_answers(jsonb, integer[]);
DROP FUNCTION purchase_submission_json(purchase_submissions);
DROP FUNCTION purchase_submission_answer(purchase_submissions);

-- A submission with its transactions, each with whether it was credited to the submission's account and whether
-- the ledger had it already, as a set of one row (see 0023).
CREATE FUNCTION purchase_submission_answer(submission purchase_submissions) RETURNS TABLE (answer json)
LANGUAGE sql STABLE AS $$
    SELECT row_to_json(a) FROM (
        SELECT submission.id, submission.app, submission.key_id, submission.account_token, submission.kind,
               submission.status, submission.environment, submission.attempts, submission.next_attempt_at,
               submission.lease_expires_at, submission.apple_status, submission.problems, submission.created_at,
               submission.updated_at, submission.finished_at,
               coalesce((
                   SELECT json_agg(r ORDER BY r.purchase_date, r.transaction_id) FROM (
                       SELECT t.app, t.environment, t.transaction_id, t.original_transaction_id, t.product_id,
                              t.apple_type, t.catalog_type, t.catalog_mismatch, t.quantity, t.purchase_date,
                              t.original_purchase_date, t.expires_date, t.revocation_date, t.revocation_reason,
                              t.price, t.currency, t.storefront, t.app_transaction_id, t.in_app_ownership_type,
                              t.web_order_line_item_id, t.transaction_reason, t.account_token, t.version,
                              t.created_at, t.updated_at,
                              t.account_key IS NOT DISTINCT FROM iap_account_key(submission.account_token) AS credited,
                              NOT s.recorded AS already_recorded
                       FROM ledger_sources s
                       JOIN ledger_transactions t
                         ON t.app = s.app AND t.environment = s.environment AND t.transaction_id = s.transaction_id
                       WHERE s.source_id = submission.id AND s.source_kind = 'submission') AS r), '[]') AS transactions
    ) AS a
$$;

CREATE FUNCTION purchase_submission_json(submission purchase_submissions) RETURNS json
LANGUAGE sql STABLE AS $$
    SELECT a.answer FROM purchase_submission_answer(submission) AS a
$$;

-- Each item's answer, by its position (from 1): whether `made_positions` holds it (its submission is new), and its
-- submission as purchase_submission_answer gives it.
CREATE FUNCTION purchase_batch_answers(items jsonb, made_positions integer[])
RETURNS TABLE (ordinal integer, created boolean, submission json)
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

-- 0029's purchases_record_signed.
CREATE FUNCTION purchases_record_signed(items jsonb)
RETURNS TABLE (ordinal integer, created boolean, submission json)
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

-- 0029's purchases_queue_receipts.
CREATE FUNCTION purchases_queue_receipts(items jsonb)
RETURNS TABLE (ordinal integer, created boolean, submission json)
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

-- As 0030 set them.
ALTER FUNCTION purchases_record_signed SET enable_seqscan = off;
ALTER FUNCTION purchases_queue_receipts SET enable_seqscan = off;
