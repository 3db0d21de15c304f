-- A batch of signed transactions that are all new is answered with what the server cannot know, not with each
-- submission as JSON (issue 22; docs/performance.md, "Answers the server writes").
--
-- purchases_record_signed (0033's) answered every item with its submission read back and written as JSON
-- (purchase_batch_answers): three index look-ups and about forty values written as text per item, nine of them
-- timestamps, which the server then parsed back. In the common batch every item is a new proof whose transaction
-- is new, and the server already holds everything that submission says but four values: the submission's id,
-- the time (the transaction's, one per batch), the catalog's type of the product, and whether the transaction was
-- credited to the submitting account. Such a batch now answers those, and the server writes the submission from
-- the facts it verified with LedgerTransaction.recording (the rule ledger_new_row follows in SQL).
--
-- Every other batch (one with a proof seen before, a transaction the ledger had, or one credited through its
-- original transaction) answers as before, each submission read back after the batch's merges, so a row that a
-- later item of the batch changed is answered as it ended. IntakeBatchTests compares both kinds of answer with
-- the stored submission.

DROP FUNCTION purchases_record_signed(jsonb);

-- 0033's purchases_record_signed, with the answers above.
CREATE FUNCTION purchases_record_signed(items jsonb)
RETURNS TABLE (ordinal integer, created boolean, submission json, submission_id uuid, recorded_at timestamptz,
               catalog_type purchase_type, credited boolean)
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
    -- the commit, and no other batch of the app can append meanwhile. When every item made a new submission
    -- that recorded its transaction, each answer is what the server cannot know (its submission, when, the
    -- catalog's type, whether it was credited); otherwise every answer is its submission as stored.
    IF cardinality(recorded_positions) = jsonb_array_length(items) THEN
        RETURN QUERY
            SELECT recorded_positions[k], true, NULL::json,
                   made_ids[array_position(made_positions, recorded_positions[k])],
                   (recorded_rows[k]).created_at, (recorded_rows[k]).catalog_type,
                   (recorded_rows[k]).account_key IS NOT DISTINCT FROM
                       iap_account_key(coalesce(items -> (recorded_positions[k] - 1) ->> 'accountToken', ''))
            FROM generate_subscripts(recorded_positions, 1) AS k;
    ELSE
        RETURN QUERY
            SELECT a.*, NULL::uuid, NULL::timestamptz, NULL::purchase_type, NULL::boolean
            FROM purchase_batch_answers(items, made_positions) AS a;
    END IF;
    PERFORM set_config('iap.history_bulk', 'on', true);
    PERFORM history_append_all(ARRAY(
        SELECT e.event FROM unnest(event_positions, events) WITH ORDINALITY AS e(position, event, arrival)
        ORDER BY e.position, e.arrival));
END
$$;

-- As 0030 set it.
ALTER FUNCTION purchases_record_signed SET enable_seqscan = off;
