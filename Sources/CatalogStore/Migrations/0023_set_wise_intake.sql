-- Intake written a batch at a time, not a row at a time (issue 22's benchmark; docs/performance.md
-- "Signed transactions: statements per batch, not per row"). The rules are 0013's and 0020's, unchanged.
--
-- A PL/pgSQL function pays for every statement it runs an executor start: its plan's nodes, the table's CHECK
-- constraints read and prepared again (and the SQL functions inside them parsed again), its generated column's
-- expression likewise. purchases_record_signed ran about eight statements for each transaction of a batch: the
-- submission, ledger_merge's lookups and inserts, the history event. A profile of PostgreSQL under the benchmark
-- found executor starts and constraint preparation about a third of its time. Now:
--
--   - history_append_all appends a list of events in one INSERT (in the list's order); history_append is that
--     list of one, so that an event's fields are mapped to columns in one place still;
--   - purchases_record_signed inserts its new submissions in one statement, then the new transactions among them
--     in one statement (ledger_new_row: the row a source makes of a transaction the ledger has not seen, shared
--     with ledger_merge), their sources in one statement, and their events with the other events of the batch.
--     A transaction the ledger has (or that two submissions of the batch bring) is merged by ledger_merge as
--     before. Signals are raised per new transaction as before (ledger_signals), after the batch's new
--     transactions are in the ledger: two purchases of one account in one batch now see each other, as any two
--     committed one after the other always did;
--   - purchases_queue_receipts likewise: the new submissions in one statement, their receipts in one;
--   - the batch's answers are read in one query (purchase_submission_answer, which purchase_submission_json
--     is now made of), not one function call each;
--   - the events of a batch are appended in the order the row-at-a-time function made them: by item, each
--     item's transaction event before its signals. Locks are taken as before: the batch's new submissions and
--     new transactions in the batch's order (the store sorts it), then known transactions in that order, the
--     app's chain head last.
--
-- iap_account_token_valid and iap_account_key become PL/pgSQL, the same expressions: as SQL functions they were
-- inlined, so every statement that inserted a row checked by them or computing account_key parsed their bodies
-- again; a PL/pgSQL function's expressions are prepared once per connection.

CREATE OR REPLACE FUNCTION iap_account_token_valid(token text) RETURNS boolean
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
    RETURN token = ''
        OR token ~ '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'
        OR token ~ '^[0-9a-f]{8}(-[0-9a-f]{8}){7}$';
END
$$;

CREATE OR REPLACE FUNCTION iap_account_key(token text) RETURNS uuid
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
    RETURN CASE
        WHEN token ~ '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' THEN token::uuid
        WHEN token ~ '^[0-9a-f]{8}(-[0-9a-f]{8}){7}$'
            THEN public.iap_uuid_v4_of(decode(replace(left(token, 35), '-', ''), 'hex'))
    END;
END
$$;

-- Appends `events` (each the JSON the store writes, HistoryRecord) in their order, in one statement; answers
-- their sequence numbers.
CREATE FUNCTION history_append_all(events jsonb[]) RETURNS SETOF bigint
LANGUAGE sql AS $$
    INSERT INTO history_events (app, product_id, product_version, kind, action, from_state, to_state,
                                actor_key_id, actor_name, actor_role, reason, changes, request_id)
    SELECT e.event ->> 'app', e.event ->> 'productId', (e.event ->> 'productVersion')::integer,
           (e.event ->> 'kind')::history_kind, (e.event ->> 'action')::review_action,
           (e.event ->> 'fromState')::review_state, (e.event ->> 'toState')::review_state,
           (e.event -> 'actor' ->> 'keyId')::uuid, e.event -> 'actor' ->> 'name',
           (e.event -> 'actor' ->> 'role')::key_role, e.event ->> 'reason', coalesce(e.event -> 'changes', '[]'),
           e.event ->> 'requestId'
    FROM unnest(events) WITH ORDINALITY AS e(event, position)
    ORDER BY e.position
    RETURNING sequence
$$;

CREATE OR REPLACE FUNCTION history_append(event jsonb) RETURNS bigint
LANGUAGE sql AS $$
    SELECT history_append_all(ARRAY[event])
$$;

-- The ledger row a source makes of a transaction the ledger does not have (0013's rule): credited to Apple's
-- appAccountToken if it carries one, else to `account`, else to the account of its original transaction (a
-- renewal the App Store notified); its catalog type the catalog's now.
CREATE FUNCTION ledger_new_row(target_app text, facts jsonb, account text)
RETURNS TABLE (app text, environment store_environment, transaction_id text, original_transaction_id text,
               product_id text, apple_type text, catalog_type purchase_type, catalog_mismatch boolean,
               quantity integer, purchase_date timestamptz, original_purchase_date timestamptz,
               expires_date timestamptz, revocation_date timestamptz, revocation_reason integer, price bigint,
               currency text, storefront text, app_transaction_id text, in_app_ownership_type text,
               web_order_line_item_id text, transaction_reason text, account_token text)
LANGUAGE sql STABLE AS $$
    SELECT target_app, (facts ->> 'environment')::store_environment, facts ->> 'transactionId',
           coalesce(facts ->> 'originalTransactionId', facts ->> 'transactionId'), facts ->> 'productId',
           facts ->> 'appleType', catalog.type,
           catalog.type IS NULL OR (facts ->> 'appleType' IS NOT NULL
                                    AND (facts ->> 'applePurchaseType')::purchase_type IS DISTINCT FROM catalog.type),
           coalesce((facts ->> 'quantity')::integer, 1), (facts ->> 'purchaseDate')::timestamptz,
           (facts ->> 'originalPurchaseDate')::timestamptz, (facts ->> 'expiresDate')::timestamptz,
           CASE WHEN NOT coalesce((facts ->> 'refundReversed')::boolean, false)
                THEN (facts ->> 'revocationDate')::timestamptz END,
           CASE WHEN NOT coalesce((facts ->> 'refundReversed')::boolean, false)
                THEN (facts ->> 'revocationReason')::integer END,
           (facts ->> 'price')::bigint, facts ->> 'currency', facts ->> 'storefront', facts ->> 'appTransactionId',
           facts ->> 'inAppOwnershipType', facts ->> 'webOrderLineItemId', facts ->> 'transactionReason',
           coalesce(nullif(lower(facts ->> 'appAccountToken'), ''), nullif(account, ''), (
               SELECT t.account_token FROM ledger_transactions t
               WHERE t.app = target_app AND t.environment = (facts ->> 'environment')::store_environment
                 AND t.original_transaction_id = facts ->> 'originalTransactionId' AND t.account_token <> ''
               ORDER BY t.purchase_date LIMIT 1), '')
    FROM (SELECT (SELECT p.type FROM products p WHERE p.app = target_app AND p.product_id = facts ->> 'productId')
                 AS type) AS catalog
$$;

-- The history event of a ledger change (0013's): NULL when `outcome` is unchanged.
CREATE FUNCTION ledger_event(outcome text, before ledger_transactions, after ledger_transactions,
                             source ledger_source_kind, source_id uuid, actor jsonb, reason text, request_id text)
RETURNS jsonb
LANGUAGE sql STABLE AS $$
    SELECT CASE WHEN outcome <> 'unchanged' THEN jsonb_build_object(
        'kind', CASE outcome WHEN 'recorded' THEN 'transaction_recorded' ELSE 'transaction_updated' END,
        'app', after.app, 'productId', after.product_id, 'actor', actor, 'reason', reason, 'requestId', request_id,
        'changes', ledger_changes(CASE WHEN outcome = 'updated' THEN before END, after)
            || jsonb_build_array(jsonb_build_object(
                   'field', CASE source WHEN 'submission' THEN 'submissionId' ELSE 'notificationUUID' END,
                   'new', source_id::text))) END
$$;

-- 0020's ledger_merge, its new row and its event from the functions above.
CREATE OR REPLACE FUNCTION ledger_merge(target_app text, facts jsonb, source ledger_source_kind, source_id uuid,
                                        account text, actor jsonb, reason text, request_id text,
                                        OUT outcome text, OUT entry ledger_transactions, OUT event jsonb,
                                        OUT signals jsonb[])
LANGUAGE plpgsql AS $$
DECLARE
    environment_value store_environment := (facts ->> 'environment')::store_environment;
    transaction_value text := facts ->> 'transactionId';
    apple_token text := nullif(lower(facts ->> 'appAccountToken'), '');
    apple_purchase_type purchase_type := (facts ->> 'applePurchaseType')::purchase_type;
    reversed boolean := coalesce((facts ->> 'refundReversed')::boolean, false);
    before ledger_transactions;
    after ledger_transactions;
BEGIN
    SELECT * INTO before FROM ledger_transactions t
    WHERE t.app = target_app AND t.environment = environment_value AND t.transaction_id = transaction_value
    FOR UPDATE;
    IF NOT FOUND THEN
        INSERT INTO ledger_transactions AS t (
            app, environment, transaction_id, original_transaction_id, product_id, apple_type, catalog_type,
            catalog_mismatch, quantity, purchase_date, original_purchase_date, expires_date, revocation_date,
            revocation_reason, price, currency, storefront, app_transaction_id, in_app_ownership_type,
            web_order_line_item_id, transaction_reason, account_token)
        SELECT * FROM ledger_new_row(target_app, facts, account)
        ON CONFLICT DO NOTHING
        RETURNING * INTO after;
        IF FOUND THEN
            outcome := 'recorded';
        ELSE
            -- Recorded a moment ago by a concurrent writer, whose commit the insert waited for.
            SELECT * INTO before FROM ledger_transactions t
            WHERE t.app = target_app AND t.environment = environment_value AND t.transaction_id = transaction_value
            FOR UPDATE;
        END IF;
    END IF;
    IF outcome IS NULL THEN
        after := before;
        IF before.account_token = '' THEN
            after.account_token := coalesce(apple_token, nullif(account, ''), '');
        END IF;
        after.original_purchase_date := coalesce(before.original_purchase_date, (facts ->> 'originalPurchaseDate')::timestamptz);
        after.expires_date := greatest(before.expires_date, (facts ->> 'expiresDate')::timestamptz);
        IF reversed THEN
            after.revocation_date := NULL;
            after.revocation_reason := NULL;
        ELSIF before.revocation_date IS NULL AND facts ->> 'revocationDate' IS NOT NULL THEN
            after.revocation_date := (facts ->> 'revocationDate')::timestamptz;
            after.revocation_reason := (facts ->> 'revocationReason')::integer;
        END IF;
        IF before.price IS NULL AND facts ->> 'price' IS NOT NULL AND facts ->> 'currency' IS NOT NULL THEN
            after.price := (facts ->> 'price')::bigint;
            after.currency := facts ->> 'currency';
        END IF;
        after.storefront := coalesce(before.storefront, facts ->> 'storefront');
        after.app_transaction_id := coalesce(before.app_transaction_id, facts ->> 'appTransactionId');
        after.in_app_ownership_type := coalesce(before.in_app_ownership_type, facts ->> 'inAppOwnershipType');
        after.web_order_line_item_id := coalesce(before.web_order_line_item_id, facts ->> 'webOrderLineItemId');
        after.transaction_reason := coalesce(before.transaction_reason, facts ->> 'transactionReason');
        IF before.apple_type IS NULL AND facts ->> 'appleType' IS NOT NULL THEN
            after.apple_type := facts ->> 'appleType';
            after.catalog_mismatch := before.catalog_type IS NULL OR apple_purchase_type IS DISTINCT FROM before.catalog_type;
        END IF;
        IF after IS DISTINCT FROM before THEN
            UPDATE ledger_transactions t SET
                account_token = after.account_token, original_purchase_date = after.original_purchase_date,
                expires_date = after.expires_date, revocation_date = after.revocation_date,
                revocation_reason = after.revocation_reason, price = after.price, currency = after.currency,
                storefront = after.storefront, app_transaction_id = after.app_transaction_id,
                in_app_ownership_type = after.in_app_ownership_type,
                web_order_line_item_id = after.web_order_line_item_id,
                transaction_reason = after.transaction_reason, apple_type = after.apple_type,
                catalog_mismatch = after.catalog_mismatch, version = t.version + 1, updated_at = now()
            WHERE t.app = before.app AND t.environment = before.environment AND t.transaction_id = before.transaction_id
            RETURNING * INTO after;
            outcome := 'updated';
        ELSE
            outcome := 'unchanged';
        END IF;
    END IF;
    INSERT INTO ledger_sources (app, environment, transaction_id, source_kind, source_id, account_token, recorded)
    VALUES (target_app, environment_value, transaction_value, source, source_id, account, outcome = 'recorded')
    ON CONFLICT DO NOTHING;
    entry := after;
    signals := ledger_signals(CASE WHEN outcome = 'recorded' THEN NULL ELSE before END, after, account, facts, source,
                              source_id, actor, request_id);
    event := ledger_event(outcome, before, after, source, source_id, actor, reason, request_id);
END
$$;

-- purchase_submission_json's answer as a set of one row, so that a query over many submissions reads them in
-- its own plan (a function returning a set of one SELECT is planned into the query that calls it).
CREATE FUNCTION purchase_submission_answer(submission purchase_submissions) RETURNS TABLE (answer jsonb)
LANGUAGE sql STABLE AS $$
    SELECT to_jsonb(submission) - 'proof_sha256' || jsonb_build_object('transactions', coalesce((
        SELECT jsonb_agg(to_jsonb(t) - 'account_key'
                         || jsonb_build_object('credited', t.account_key IS NOT DISTINCT FROM iap_account_key(submission.account_token),
                                               'already_recorded', NOT s.recorded)
                         ORDER BY t.purchase_date, t.transaction_id)
        FROM ledger_sources s
        JOIN ledger_transactions t
          ON t.app = s.app AND t.environment = s.environment AND t.transaction_id = s.transaction_id
        WHERE s.source_id = submission.id AND s.source_kind = 'submission'), '[]'))
$$;

CREATE OR REPLACE FUNCTION purchase_submission_json(submission purchase_submissions) RETURNS jsonb
LANGUAGE sql STABLE AS $$
    SELECT a.answer FROM purchase_submission_answer(submission) AS a
$$;

-- 0020's purchases_record_signed, a statement per step of the batch rather than per item: `items` as there
-- ([{"app", "keyId", "accountToken", "proofSha256" (hex), "environment", "facts", "actor", "reason",
-- "requestId"}]); answers per item (by ordinal, from 1) whether its submission is new, and the submission.
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
    -- two of them bring is recorded by the first.
    WITH made AS (
        SELECT m.position, items -> (m.position - 1) AS body
        FROM unnest(made_positions) AS m(position)),
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
        SELECT i.position::integer, i.position::integer = ANY (made_positions), a.answer
        FROM jsonb_array_elements(items) WITH ORDINALITY AS i(value, position)
        JOIN purchase_submissions s
          ON s.app = i.value ->> 'app' AND s.account_token = coalesce(i.value ->> 'accountToken', '')
         AND s.proof_sha256 = decode(i.value ->> 'proofSha256', 'hex')
        CROSS JOIN LATERAL purchase_submission_answer(s) AS a;
    PERFORM set_config('iap.history_bulk', 'on', true);
    PERFORM history_append_all(ARRAY(
        SELECT e.event FROM unnest(event_positions, events) WITH ORDINALITY AS e(position, event, arrival)
        ORDER BY e.position, e.arrival));
END
$$;

-- 0013's purchases_queue_receipts, a statement per step: the new submissions in one, their receipts in one, the
-- answers in one query.
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
        SELECT i.position::integer, i.position::integer = ANY (made_positions), a.answer
        FROM jsonb_array_elements(items) WITH ORDINALITY AS i(value, position)
        JOIN purchase_submissions s
          ON s.app = i.value ->> 'app' AND s.account_token = coalesce(i.value ->> 'accountToken', '')
         AND s.proof_sha256 = decode(i.value ->> 'proofSha256', 'hex')
        CROSS JOIN LATERAL purchase_submission_answer(s) AS a;
END
$$;

-- 0020's, their events appended in one statement.
CREATE OR REPLACE FUNCTION purchases_record_verified(items jsonb)
RETURNS TABLE (ordinal integer)
LANGUAGE plpgsql AS $$
DECLARE
    item record;
    facts jsonb;
    submission purchase_submissions;
    actor jsonb;
    merged record;
    events jsonb[] := '{}';
    recorded integer[] := '{}';
BEGIN
    FOR item IN SELECT i.value AS body, i.position::integer AS position
                FROM jsonb_array_elements(items) WITH ORDINALITY AS i(value, position) LOOP
        UPDATE purchase_submissions s SET
            status = 'verified', environment = (item.body ->> 'environment')::store_environment,
            apple_status = (item.body ->> 'appleStatus')::integer,
            problems = coalesce(item.body -> 'problems', '[]'), next_attempt_at = NULL, lease_expires_at = NULL,
            updated_at = now(), finished_at = now()
        WHERE s.id = (item.body ->> 'submissionId')::uuid AND s.status = 'verifying'
          AND s.attempts = (item.body ->> 'attempts')::integer
        RETURNING * INTO submission;
        CONTINUE WHEN NOT FOUND;
        SELECT jsonb_build_object('keyId', k.id, 'name', k.name, 'role', k.role) INTO actor
        FROM api_keys k WHERE k.id = submission.key_id;
        FOR facts IN SELECT value FROM jsonb_array_elements(coalesce(item.body -> 'transactions', '[]')) LOOP
            SELECT * INTO merged FROM ledger_merge(
                submission.app, facts, 'submission', submission.id, submission.account_token, actor,
                item.body ->> 'reason', item.body ->> 'requestId');
            IF merged.event IS NOT NULL THEN events := events || merged.event; END IF;
            events := events || merged.signals;
        END LOOP;
        DELETE FROM submission_receipts r WHERE r.submission_id = submission.id;
        recorded := recorded || item.position;
    END LOOP;
    PERFORM set_config('iap.history_bulk', 'on', true);
    PERFORM history_append_all(events);
    RETURN QUERY SELECT unnest(recorded);
END
$$;

CREATE OR REPLACE FUNCTION purchases_record_notification(notification jsonb, OUT created boolean, OUT outcome text)
LANGUAGE plpgsql AS $$
DECLARE
    merged record;
BEGIN
    INSERT INTO app_store_notifications (notification_uuid, app, notification_type, subtype, environment,
                                         signed_date, transaction_id, original_transaction_id)
    VALUES ((notification ->> 'notificationUUID')::uuid, notification ->> 'app', notification ->> 'notificationType',
            notification ->> 'subtype', (notification ->> 'environment')::store_environment,
            (notification ->> 'signedDate')::timestamptz, notification ->> 'transactionId',
            notification ->> 'originalTransactionId')
    ON CONFLICT (notification_uuid) DO NOTHING;
    created := FOUND;
    IF NOT created OR notification -> 'facts' IS NULL OR jsonb_typeof(notification -> 'facts') <> 'object' THEN
        RETURN;
    END IF;
    SELECT * INTO merged FROM ledger_merge(
        notification ->> 'app', notification -> 'facts', 'notification', (notification ->> 'notificationUUID')::uuid,
        '', jsonb_build_object('keyId', NULL, 'name', 'App Store', 'role', NULL), notification ->> 'reason',
        notification ->> 'requestId');
    outcome := merged.outcome;
    PERFORM history_append_all(CASE WHEN merged.event IS NULL THEN '{}' ELSE ARRAY[merged.event] END
                               || merged.signals);
END
$$;
