-- Accounts (issue 23, DESIGN.md "Accounts"): the per-app secret account tokens are made under, the account a token
-- stands for (either form), what the ledger needs to answer one account fast, and the signals of irregular
-- activity. The database repeats what must hold whatever the client:
--
--   - every app has exactly one secret, made with the app (and for every app that existed before), never changed;
--     the service may read it and nothing else;
--   - a token's account key is computed by the database from the token itself (a generated column), so both
--     forms of one account are one account in every query;
--   - signals are append-only, raised once per transaction and other account (sharedTransaction) or per
--     transaction (manyStoreAccounts).

-- The secret ----------------------------------------------------------------------------------------------------

-- 32 bytes from two version 4 UUIDs of pg_strong_random: 244 random bits, without an extension.
CREATE FUNCTION iap_random_secret() RETURNS bytea
LANGUAGE sql VOLATILE AS $$
    SELECT uuid_send(gen_random_uuid()) || uuid_send(gen_random_uuid())
$$;

-- Apart from apps, so that nothing that reads or exports apps can carry it.
CREATE TABLE account_token_secrets (
    app        text COLLATE "C" PRIMARY KEY REFERENCES apps (bundle_id),
    secret     bytea NOT NULL CHECK (octet_length(secret) = 32),
    created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TRIGGER account_token_secrets_never_change BEFORE UPDATE OR DELETE ON account_token_secrets
    FOR EACH ROW EXECUTE FUNCTION refuse_change();
CREATE TRIGGER account_token_secrets_no_truncate BEFORE TRUNCATE ON account_token_secrets
    FOR EACH STATEMENT EXECUTE FUNCTION refuse_change();

-- Made with the app, whoever inserts it, with the owner's rights: the service role reads secrets, never writes one.
CREATE FUNCTION apps_make_account_token_secret() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
BEGIN
    INSERT INTO account_token_secrets (app, secret) VALUES (NEW.bundle_id, iap_random_secret());
    RETURN NULL;
END
$$;

CREATE TRIGGER apps_make_account_token_secret AFTER INSERT ON apps
    FOR EACH ROW EXECUTE FUNCTION apps_make_account_token_secret();

INSERT INTO account_token_secrets (app, secret) SELECT a.bundle_id, iap_random_secret() FROM apps a;

-- The account a token stands for --------------------------------------------------------------------------------

-- A UUID of 16 bytes with the version 4 and RFC 4122 variant bits set (PurchaseCore's AccountTokens.uuid).
CREATE FUNCTION iap_uuid_v4_of(bytes bytea) RETURNS uuid
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT encode(set_byte(set_byte(bytes, 6, (get_byte(bytes, 6) & 15) | 64), 8, (get_byte(bytes, 8) & 63) | 128),
                  'hex')::uuid
$$;

-- PurchaseCore's AccountToken.accountKey: a UUID is its own key; the seed's applicationUsername layout stands for
-- the UUID of its first 16 bytes (the first four groups) with the version 4 and RFC 4122 variant bits set, as the
-- server makes appAccountToken from the same digest; NULL for '' (no account). Each arm is guarded by its layout,
-- so that a constant argument folds without evaluating an arm that does not apply.
CREATE FUNCTION iap_account_key(token text) RETURNS uuid
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT CASE
        WHEN token ~ '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' THEN token::uuid
        WHEN token ~ '^[0-9a-f]{8}(-[0-9a-f]{8}){7}$' THEN iap_uuid_v4_of(decode(replace(left(token, 35), '-', ''), 'hex'))
    END
$$;

ALTER TABLE ledger_transactions ADD COLUMN account_key uuid GENERATED ALWAYS AS (iap_account_key(account_token)) STORED;

-- One account's transactions (GET …/accounts/{token}), and its App Store accounts within a window
-- (manyStoreAccounts), without visiting another account's rows.
CREATE INDEX ledger_transactions_by_account ON ledger_transactions (app, account_key, environment, purchase_date)
    INCLUDE (app_transaction_id) WHERE account_key IS NOT NULL;

-- manyStoreAccounts' N and window ---------------------------------------------------------------------------------

ALTER TABLE store_settings
    ADD COLUMN many_store_accounts_limit integer NOT NULL DEFAULT 3 CHECK (many_store_accounts_limit BETWEEN 1 AND 1000),
    ADD COLUMN many_store_accounts_window_hours integer NOT NULL DEFAULT 720
        CHECK (many_store_accounts_window_hours BETWEEN 1 AND 8784);

-- Signals -------------------------------------------------------------------------------------------------------

CREATE TYPE account_signal_kind AS ENUM ('sharedTransaction', 'manyStoreAccounts', 'refund');

CREATE TABLE account_signals (
    id                  bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    app                 text COLLATE "C" NOT NULL REFERENCES apps (bundle_id),
    kind                account_signal_kind NOT NULL,
    -- The account concerned: the one credited with the transaction ('' when none is).
    account_token       text COLLATE "C" NOT NULL DEFAULT '' CHECK (iap_account_token_valid(account_token)),
    account_key         uuid GENERATED ALWAYS AS (iap_account_key(account_token)) STORED,
    -- sharedTransaction: the account the transaction was brought for, not credited.
    other_account_token text COLLATE "C" CHECK (other_account_token <> '' AND iap_account_token_valid(other_account_token)),
    other_account_key   uuid GENERATED ALWAYS AS (iap_account_key(other_account_token)) STORED,
    environment         store_environment NOT NULL,
    transaction_id      text COLLATE "C" NOT NULL,
    product_id          text COLLATE "C" NOT NULL,
    -- manyStoreAccounts: {"storeAccounts": [...], "limit", "windowHours"}; refund: {"revocationDate",
    -- "revocationReason"}.
    details             jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(details) = 'object'),
    -- What brought the ledger change that raised it.
    source_kind         ledger_source_kind NOT NULL,
    source_id           uuid NOT NULL,
    raised_at           timestamptz NOT NULL DEFAULT now(),
    FOREIGN KEY (app, environment, transaction_id) REFERENCES ledger_transactions (app, environment, transaction_id),
    CHECK ((kind = 'sharedTransaction') = (other_account_token IS NOT NULL))
);

CREATE UNIQUE INDEX account_signals_shared_once ON account_signals (app, environment, transaction_id, other_account_key)
    WHERE kind = 'sharedTransaction';
CREATE UNIQUE INDEX account_signals_many_once ON account_signals (app, environment, transaction_id)
    WHERE kind = 'manyStoreAccounts';
CREATE INDEX account_signals_by_app ON account_signals (app, id);
CREATE INDEX account_signals_by_account ON account_signals (app, account_key, id) WHERE account_key IS NOT NULL;
CREATE INDEX account_signals_by_other_account ON account_signals (app, other_account_key, id)
    WHERE other_account_key IS NOT NULL;

CREATE TRIGGER account_signals_append_only BEFORE UPDATE OR DELETE ON account_signals
    FOR EACH ROW EXECUTE FUNCTION refuse_change();
CREATE TRIGGER account_signals_no_truncate BEFORE TRUNCATE ON account_signals
    FOR EACH STATEMENT EXECUTE FUNCTION refuse_change();

-- Raising signals in the ledger's writes ------------------------------------------------------------------------

-- The history event of a signal (kind signal_raised, in the app's chain, by the actor of the ledger change that
-- raised it): what the signal says, field by field.
CREATE FUNCTION ledger_signal_event(signal account_signals, actor jsonb, request_id text) RETURNS jsonb
LANGUAGE sql STABLE AS $$
    SELECT jsonb_build_object(
        'kind', 'signal_raised', 'app', signal.app, 'productId', signal.product_id, 'actor', actor,
        'requestId', request_id,
        'reason', CASE signal.kind
            WHEN 'sharedTransaction' THEN 'a transaction credited to one account was brought for another'
            WHEN 'manyStoreAccounts' THEN 'one account''s purchases came from more App Store accounts than the app allows'
            ELSE 'the App Store refunded or revoked a transaction' END,
        'changes', (
            SELECT jsonb_agg(jsonb_build_object('field', f.field, 'new', f.new) ORDER BY f.position)
            FROM (VALUES
                (1, 'signal', to_jsonb(signal.kind::text)),
                (2, 'signalId', to_jsonb(signal.id)),
                (3, 'environment', to_jsonb(signal.environment::text)),
                (4, 'transactionId', to_jsonb(signal.transaction_id)),
                (5, 'accountToken', to_jsonb(nullif(signal.account_token, ''))),
                (6, 'otherAccountToken', to_jsonb(signal.other_account_token)),
                (7, 'storeAccounts', signal.details -> 'storeAccounts'),
                (8, 'storeAccountCount', signal.details -> 'storeAccountCount'),
                (9, 'limit', signal.details -> 'limit'),
                (10, 'windowHours', signal.details -> 'windowHours'),
                (11, 'revocationDate', signal.details -> 'revocationDate'),
                (12, 'revocationReason', signal.details -> 'revocationReason')
            ) AS f(position, field, new)
            WHERE f.new IS NOT NULL AND f.new <> 'null'::jsonb))
$$;

-- The most App Store accounts a manyStoreAccounts signal lists (their number is kept whole).
CREATE FUNCTION iap_store_accounts_listed() RETURNS integer LANGUAGE sql IMMUTABLE AS $$ SELECT 100 $$;

-- PurchaseCore's AccountSignalRule: the signals one source's merge raises, recorded now, answered as their history
-- events (which the caller appends with the ledger's, once every row it writes is locked). `before` is the row
-- before the merge (NULL: the transaction is new), `after` the row now, `account` the account the source brought
-- it for ('' for none), `facts` what the source said (Apple's appAccountToken among them).
--
--   - sharedTransaction, for each of `account` and Apple's appAccountToken that is another account than the one
--     credited (by account key: the two forms of one account are one account); once per transaction and other
--     account, however often it is brought again;
--   - manyStoreAccounts, when the transaction newly counts for its account (new, or it gains its account or its
--     appTransactionId now), its appTransactionId is none of the account's other transactions of the environment
--     purchased in the window ending at its purchase, and with it they are more than the app's N;
--   - refund, when the transaction becomes revoked.
--
-- Two purchases of one account from new App Store accounts committed at the same instant do not see each other:
-- the account's next purchase from a new App Store account counts them all.
CREATE FUNCTION ledger_signals(before ledger_transactions, after ledger_transactions, account text, facts jsonb,
                               source ledger_source_kind, source_id uuid, actor jsonb, request_id text)
RETURNS jsonb[]
LANGUAGE plpgsql AS $$
DECLARE
    events jsonb[] := '{}';
    credited uuid := iap_account_key(after.account_token);
    apple text := coalesce(lower(facts ->> 'appAccountToken'), '');
    seen uuid[];
    other text;
    limit_value integer;
    window_hours integer;
    recent text[];
    signal account_signals;
BEGIN
    IF credited IS NOT NULL THEN
        seen := ARRAY[credited];
        FOREACH other IN ARRAY ARRAY[account, apple] LOOP
            CONTINUE WHEN other = '' OR NOT iap_account_token_valid(other) OR iap_account_key(other) = ANY (seen);
            seen := seen || iap_account_key(other);
            INSERT INTO account_signals (app, kind, account_token, other_account_token, environment, transaction_id,
                                         product_id, source_kind, source_id)
            VALUES (after.app, 'sharedTransaction', after.account_token, other, after.environment, after.transaction_id,
                    after.product_id, source, source_id)
            ON CONFLICT DO NOTHING
            RETURNING * INTO signal;
            IF FOUND THEN
                events := events || ledger_signal_event(signal, actor, request_id);
            END IF;
        END LOOP;
    END IF;

    IF credited IS NOT NULL AND after.app_transaction_id IS NOT NULL
       AND NOT coalesce(before.account_token <> '' AND before.app_transaction_id IS NOT NULL, false) THEN
        SELECT coalesce(max(s.many_store_accounts_limit), 3), coalesce(max(s.many_store_accounts_window_hours), 720)
        INTO limit_value, window_hours
        FROM store_settings s WHERE s.app = after.app;
        SELECT coalesce(array_agg(DISTINCT t.app_transaction_id COLLATE "C" ORDER BY t.app_transaction_id COLLATE "C"),
                        '{}')
        INTO recent
        FROM ledger_transactions t
        WHERE t.app = after.app AND t.account_key = credited AND t.environment = after.environment
          AND t.purchase_date > after.purchase_date - make_interval(hours => window_hours)
          AND t.purchase_date <= after.purchase_date
          AND t.transaction_id <> after.transaction_id AND t.app_transaction_id IS NOT NULL;
        IF NOT (after.app_transaction_id = ANY (recent)) AND cardinality(recent) + 1 > limit_value THEN
            INSERT INTO account_signals (app, kind, account_token, environment, transaction_id, product_id, details,
                                         source_kind, source_id)
            VALUES (after.app, 'manyStoreAccounts', after.account_token, after.environment, after.transaction_id,
                    after.product_id,
                    jsonb_build_object(
                        'storeAccounts', (SELECT jsonb_agg(a ORDER BY a COLLATE "C")
                                          FROM (SELECT a FROM unnest(recent || after.app_transaction_id) AS u(a)
                                                ORDER BY a COLLATE "C" LIMIT iap_store_accounts_listed()) AS l),
                        'storeAccountCount', cardinality(recent) + 1, 'limit', limit_value,
                        'windowHours', window_hours),
                    source, source_id)
            ON CONFLICT DO NOTHING
            RETURNING * INTO signal;
            IF FOUND THEN
                events := events || ledger_signal_event(signal, actor, request_id);
            END IF;
        END IF;
    END IF;

    IF after.revocation_date IS NOT NULL AND before.revocation_date IS NULL THEN
        INSERT INTO account_signals (app, kind, account_token, environment, transaction_id, product_id, details,
                                     source_kind, source_id)
        VALUES (after.app, 'refund', after.account_token, after.environment, after.transaction_id, after.product_id,
                jsonb_strip_nulls(jsonb_build_object('revocationDate', iap_instant_text(after.revocation_date),
                                                     'revocationReason', after.revocation_reason)),
                source, source_id)
        RETURNING * INTO signal;
        events := events || ledger_signal_event(signal, actor, request_id);
    END IF;
    RETURN events;
END
$$;

-- ledger_merge (0013) also answers the signals of the merge (ledger_signals) as history events; its callers append
-- them with the ledger's. The rest of it is 0013's, unchanged. A submission's transaction is credited to it when
-- the account credited is the submission's, in either form.
DROP FUNCTION ledger_merge(text, jsonb, ledger_source_kind, uuid, text, jsonb, text, text);

CREATE FUNCTION ledger_merge(target_app text, facts jsonb, source ledger_source_kind, source_id uuid,
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
    inherited text;
    catalog purchase_type;
BEGIN
    SELECT * INTO before FROM ledger_transactions t
    WHERE t.app = target_app AND t.environment = environment_value AND t.transaction_id = transaction_value
    FOR UPDATE;
    IF NOT FOUND THEN
        IF apple_token IS NULL AND account = '' THEN
            SELECT t.account_token INTO inherited FROM ledger_transactions t
            WHERE t.app = target_app AND t.environment = environment_value
              AND t.original_transaction_id = facts ->> 'originalTransactionId' AND t.account_token <> ''
            ORDER BY t.purchase_date LIMIT 1;
        END IF;
        SELECT p.type INTO catalog FROM products p WHERE p.app = target_app AND p.product_id = facts ->> 'productId';
        INSERT INTO ledger_transactions AS t (
            app, environment, transaction_id, original_transaction_id, product_id, apple_type, catalog_type,
            catalog_mismatch, quantity, purchase_date, original_purchase_date, expires_date, revocation_date,
            revocation_reason, price, currency, storefront, app_transaction_id, in_app_ownership_type,
            web_order_line_item_id, transaction_reason, account_token)
        VALUES (
            target_app, environment_value, transaction_value,
            coalesce(facts ->> 'originalTransactionId', transaction_value), facts ->> 'productId',
            facts ->> 'appleType', catalog,
            catalog IS NULL OR (facts ->> 'appleType' IS NOT NULL AND apple_purchase_type IS DISTINCT FROM catalog),
            coalesce((facts ->> 'quantity')::integer, 1), (facts ->> 'purchaseDate')::timestamptz,
            (facts ->> 'originalPurchaseDate')::timestamptz, (facts ->> 'expiresDate')::timestamptz,
            CASE WHEN NOT reversed THEN (facts ->> 'revocationDate')::timestamptz END,
            CASE WHEN NOT reversed THEN (facts ->> 'revocationReason')::integer END,
            (facts ->> 'price')::bigint, facts ->> 'currency', facts ->> 'storefront', facts ->> 'appTransactionId',
            facts ->> 'inAppOwnershipType', facts ->> 'webOrderLineItemId', facts ->> 'transactionReason',
            coalesce(apple_token, nullif(account, ''), inherited, ''))
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
    IF outcome <> 'unchanged' THEN
        event := jsonb_build_object(
            'kind', CASE outcome WHEN 'recorded' THEN 'transaction_recorded' ELSE 'transaction_updated' END,
            'app', target_app, 'productId', after.product_id, 'actor', actor, 'reason', reason,
            'requestId', request_id,
            'changes', ledger_changes(CASE WHEN outcome = 'updated' THEN before END, after)
                || jsonb_build_array(jsonb_build_object(
                       'field', CASE source WHEN 'submission' THEN 'submissionId' ELSE 'notificationUUID' END,
                       'new', source_id::text)));
    END IF;
END
$$;

CREATE OR REPLACE FUNCTION purchase_submission_json(submission purchase_submissions) RETURNS jsonb
LANGUAGE sql STABLE AS $$
    SELECT to_jsonb(submission) - 'proof_sha256' || jsonb_build_object('transactions', coalesce((
        SELECT jsonb_agg(to_jsonb(t) - 'account_key' || jsonb_build_object('credited', t.account_key IS NOT DISTINCT FROM iap_account_key(submission.account_token),
                                                           'already_recorded', NOT s.recorded)
                         ORDER BY t.purchase_date, t.transaction_id)
        FROM ledger_sources s
        JOIN ledger_transactions t
          ON t.app = s.app AND t.environment = s.environment AND t.transaction_id = s.transaction_id
        WHERE s.source_id = submission.id AND s.source_kind = 'submission'), '[]'))
$$;

CREATE OR REPLACE FUNCTION purchases_record_signed(items jsonb)
RETURNS TABLE (ordinal integer, created boolean, submission jsonb)
LANGUAGE plpgsql AS $$
DECLARE
    item record;
    submission_id uuid;
    merged record;
    events jsonb[] := '{}';
    results jsonb[] := '{}';
    event jsonb;
BEGIN
    FOR item IN SELECT i.value AS body, i.position::integer AS position
                FROM jsonb_array_elements(items) WITH ORDINALITY AS i(value, position) LOOP
        INSERT INTO purchase_submissions AS s (app, key_id, account_token, kind, proof_sha256, status, environment,
                                               attempts, finished_at)
        VALUES (item.body ->> 'app', (item.body ->> 'keyId')::uuid, coalesce(item.body ->> 'accountToken', ''),
                'signed_transaction', decode(item.body ->> 'proofSha256', 'hex'), 'verified',
                (item.body ->> 'environment')::store_environment, 1, now())
        ON CONFLICT (app, account_token, proof_sha256) DO NOTHING
        RETURNING s.id INTO submission_id;
        IF FOUND THEN
            SELECT * INTO merged FROM ledger_merge(
                item.body ->> 'app', item.body -> 'facts', 'submission', submission_id,
                coalesce(item.body ->> 'accountToken', ''), item.body -> 'actor', item.body ->> 'reason',
                item.body ->> 'requestId');
            IF merged.event IS NOT NULL THEN events := events || merged.event; END IF;
            events := events || merged.signals;
            results := results || jsonb_build_object('position', item.position, 'created', true, 'id', submission_id);
        ELSE
            SELECT s.id INTO submission_id FROM purchase_submissions s
            WHERE s.app = item.body ->> 'app' AND s.account_token = coalesce(item.body ->> 'accountToken', '')
              AND s.proof_sha256 = decode(item.body ->> 'proofSha256', 'hex');
            results := results || jsonb_build_object('position', item.position, 'created', false, 'id', submission_id);
        END IF;
    END LOOP;
    PERFORM set_config('iap.history_bulk', 'on', true);
    FOREACH event IN ARRAY events LOOP
        PERFORM history_append(event);
    END LOOP;
    RETURN QUERY
        SELECT (r ->> 'position')::integer, (r ->> 'created')::boolean, purchase_submission_json(s)
        FROM unnest(results) AS r
        JOIN purchase_submissions s ON s.id = (r ->> 'id')::uuid;
END
$$;

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
    event jsonb;
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
    FOREACH event IN ARRAY events LOOP
        PERFORM history_append(event);
    END LOOP;
    RETURN QUERY SELECT unnest(recorded);
END
$$;

CREATE OR REPLACE FUNCTION purchases_record_notification(notification jsonb, OUT created boolean, OUT outcome text)
LANGUAGE plpgsql AS $$
DECLARE
    merged record;
    event jsonb;
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
    IF merged.event IS NOT NULL THEN
        PERFORM history_append(merged.event);
    END IF;
    FOREACH event IN ARRAY merged.signals LOOP
        PERFORM history_append(event);
    END LOOP;
END
$$;

DO $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'iap_service') THEN
        RETURN;
    END IF;
    GRANT SELECT ON account_token_secrets TO iap_service;
    GRANT SELECT, INSERT ON account_signals TO iap_service;
END
$$;
