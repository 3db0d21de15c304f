-- Purchases (issue 22, DESIGN.md "Purchases"): store settings per app, the submissions of client apps and the
-- receipts waiting for verification, the ledger of App Store transactions and the sources that brought each,
-- and the App Store's notifications. The database repeats what must hold whatever the client:
--
--   - a client key is limited to exactly one app;
--   - the same proof for the same account is one submission (UNIQUE), however often and however concurrently
--     it is sent; a submission keeps who made it, for whom and what it proved; verified and invalid are final;
--   - one ledger row per transaction and environment (PRIMARY KEY); a row is never deleted, its identity, its
--     first facts and the account it was credited to never change, and every change grows its version by one;
--   - the sources of a transaction and the notifications received are append-only;
--   - the service's role may not delete any of it (grants at the end), nor touch history but by appending.
--
-- Every ledger change is written by ledger_merge, which answers the history event of the change; the callers
-- (purchases_record_signed, purchases_record_verified, purchases_record_notification) append those events in
-- the same transaction, after every ledger row of the transaction is locked, so that the app's chain head is
-- taken last and held only to commit. PurchaseCore's `LedgerTransaction.merging` is the same rule in Swift (a
-- test runs both over the same cases).
--
-- History events of the App Store's own notifications have no key: actor_role becomes nullable (the canonical
-- form already writes a missing value as null, so every existing event hashes as before).

ALTER TABLE history_events ALTER COLUMN actor_role DROP NOT NULL;

ALTER TABLE api_keys ADD CONSTRAINT api_keys_client_one_app
    CHECK (role <> 'client' OR (apps IS NOT NULL AND cardinality(apps) = 1));

-- The environments of PurchaseCore's AppStoreEnvironment, as Apple spells them.
CREATE TYPE store_environment AS ENUM ('Production', 'Sandbox', 'Xcode', 'LocalTesting');
CREATE TYPE submission_kind AS ENUM ('signed_transaction', 'receipt');
CREATE TYPE submission_status AS ENUM ('queued', 'verifying', 'retrying', 'verified', 'invalid', 'failed');
CREATE TYPE ledger_source_kind AS ENUM ('submission', 'notification');

-- The account tokens a submission may carry: a UUID (StoreKit 2's appAccountToken) or the seed's
-- applicationUsername layout (64 hex digits, a dash after every 4 bytes), lowercase; '' for none.
CREATE FUNCTION iap_account_token_valid(token text) RETURNS boolean
LANGUAGE sql IMMUTABLE AS $$
    SELECT token = ''
        OR token ~ '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'
        OR token ~ '^[0-9a-f]{8}(-[0-9a-f]{8}){7}$'
$$;

-- Store settings ---------------------------------------------------------------------------------------------

-- An app without a row has the defaults (both environments, no Xcode, no shared secret).
CREATE TABLE store_settings (
    app           text COLLATE "C" PRIMARY KEY REFERENCES apps (bundle_id),
    app_apple_id  bigint CHECK (app_apple_id > 0),
    -- verifyReceipt's shared secret: written through the API, read by the verification worker, never answered,
    -- logged or exported.
    shared_secret text CHECK (shared_secret ~ '^[\x21-\x7e]{1,256}$'),
    environments  store_environment[] NOT NULL DEFAULT '{Production,Sandbox}'
                  CHECK (cardinality(environments) BETWEEN 1 AND 2 AND environments <@ '{Production,Sandbox}'),
    accept_xcode  boolean NOT NULL DEFAULT false,
    version       integer NOT NULL DEFAULT 1 CHECK (version >= 1),
    updated_at    timestamptz NOT NULL DEFAULT now()
);

-- Submissions -------------------------------------------------------------------------------------------------

CREATE TABLE purchase_submissions (
    id               uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    app              text COLLATE "C" NOT NULL REFERENCES apps (bundle_id),
    -- The key that submitted it: the verification worker records the outcome on its behalf.
    key_id           uuid NOT NULL REFERENCES api_keys (id),
    account_token    text COLLATE "C" NOT NULL DEFAULT '' CHECK (iap_account_token_valid(account_token)),
    kind             submission_kind NOT NULL,
    -- SHA-256 of the proof as sent (a receipt without its whitespace).
    proof_sha256     bytea NOT NULL CHECK (octet_length(proof_sha256) = 32),
    status           submission_status NOT NULL DEFAULT 'queued',
    environment      store_environment,
    attempts         integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
    next_attempt_at  timestamptz,
    lease_expires_at timestamptz,
    apple_status     integer,
    -- ["..."]: why it is invalid or retried, one sentence each, in the App Store's words where it gave any.
    problems         jsonb NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(problems) = 'array'),
    created_at       timestamptz NOT NULL DEFAULT now(),
    updated_at       timestamptz NOT NULL DEFAULT now(),
    finished_at      timestamptz,
    CONSTRAINT purchase_submissions_one_per_proof UNIQUE (app, account_token, proof_sha256),
    CONSTRAINT purchase_submissions_finished CHECK ((status IN ('verified', 'invalid', 'failed')) = (finished_at IS NOT NULL)),
    CONSTRAINT purchase_submissions_due CHECK (status NOT IN ('queued', 'retrying') OR next_attempt_at IS NOT NULL),
    CONSTRAINT purchase_submissions_leased CHECK (status <> 'verifying' OR lease_expires_at IS NOT NULL),
    -- A signed transaction is decided in its request: only a verified one is recorded.
    CONSTRAINT purchase_submissions_signed_verified CHECK (kind <> 'signed_transaction' OR status = 'verified')
);

-- The queue's due work: queued and retrying by their time, verifying by the end of their lease.
CREATE INDEX purchase_submissions_due ON purchase_submissions (next_attempt_at) WHERE status IN ('queued', 'retrying');
CREATE INDEX purchase_submissions_leases ON purchase_submissions (lease_expires_at) WHERE status = 'verifying';
-- Listings, newest first, by keyset.
CREATE INDEX purchase_submissions_by_app ON purchase_submissions (app, created_at, id);

-- Who made a submission, for whom and what it proved never change; verified and invalid are final; attempts
-- only grow.
CREATE FUNCTION purchase_submissions_guard() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.id <> OLD.id OR NEW.app <> OLD.app OR NEW.key_id <> OLD.key_id OR NEW.account_token <> OLD.account_token
       OR NEW.kind <> OLD.kind OR NEW.proof_sha256 <> OLD.proof_sha256 OR NEW.created_at <> OLD.created_at THEN
        RAISE EXCEPTION USING ERRCODE = 'IC002',
            MESSAGE = 'a submission''s app, key, account, kind, proof and creation never change';
    END IF;
    IF OLD.status IN ('verified', 'invalid') AND NEW.status <> OLD.status THEN
        RAISE EXCEPTION USING ERRCODE = 'IC001', MESSAGE = format('a %s submission is final', OLD.status);
    END IF;
    IF NEW.attempts < OLD.attempts THEN
        RAISE EXCEPTION USING ERRCODE = 'IC002', MESSAGE = 'a submission''s attempts never decrease';
    END IF;
    RETURN NEW;
END
$$;

CREATE TRIGGER purchase_submissions_guard BEFORE UPDATE ON purchase_submissions
    FOR EACH ROW EXECUTE FUNCTION purchase_submissions_guard();

-- A receipt waiting for its outcome, apart from the queue's narrow rows. Deleted once the outcome is verified
-- or invalid (the ledger keeps the facts); kept while failed, so that an operator's retry can send it again.
CREATE TABLE submission_receipts (
    submission_id uuid PRIMARY KEY REFERENCES purchase_submissions (id),
    receipt       text NOT NULL CHECK (char_length(receipt) BETWEEN 1 AND 262144)
);

-- The ledger -----------------------------------------------------------------------------------------------------

CREATE TABLE ledger_transactions (
    app                     text COLLATE "C" NOT NULL REFERENCES apps (bundle_id),
    environment             store_environment NOT NULL,
    transaction_id          text COLLATE "C" NOT NULL CHECK (char_length(transaction_id) BETWEEN 1 AND 200),
    original_transaction_id text COLLATE "C" NOT NULL CHECK (char_length(original_transaction_id) BETWEEN 1 AND 200),
    product_id              text COLLATE "C" NOT NULL CHECK (char_length(product_id) BETWEEN 1 AND 200),
    -- Apple's type ("Consumable", ...); unknown until a source that carries it (a receipt does not).
    apple_type              text CHECK (char_length(apple_type) BETWEEN 1 AND 100),
    -- The catalog's type of the product when the transaction was recorded; NULL: not in the catalog.
    catalog_type            purchase_type,
    catalog_mismatch        boolean NOT NULL,
    quantity                integer NOT NULL CHECK (quantity BETWEEN 0 AND 1000000),
    purchase_date           timestamptz NOT NULL,
    original_purchase_date  timestamptz,
    expires_date            timestamptz,
    revocation_date         timestamptz,
    revocation_reason       integer,
    -- Apple's price in milliunits of `currency`, when the source gives it.
    price                   bigint,
    currency                text CHECK (currency ~ '^[A-Z]{3}$'),
    storefront              text CHECK (char_length(storefront) BETWEEN 1 AND 100),
    app_transaction_id      text CHECK (char_length(app_transaction_id) BETWEEN 1 AND 200),
    in_app_ownership_type   text CHECK (char_length(in_app_ownership_type) BETWEEN 1 AND 100),
    web_order_line_item_id  text CHECK (char_length(web_order_line_item_id) BETWEEN 1 AND 200),
    transaction_reason      text CHECK (char_length(transaction_reason) BETWEEN 1 AND 100),
    -- The account credited: Apple's appAccountToken when the transaction carries one, else the first account
    -- that brought it ('' until one does).
    account_token           text COLLATE "C" NOT NULL DEFAULT '' CHECK (iap_account_token_valid(account_token)),
    version                 integer NOT NULL DEFAULT 1 CHECK (version >= 1),
    created_at              timestamptz NOT NULL DEFAULT now(),
    updated_at              timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (app, environment, transaction_id),
    CHECK ((price IS NULL) = (currency IS NULL))
);

-- Listings, exports and summaries by purchase date; renewals found by their original transaction.
CREATE INDEX ledger_transactions_by_date ON ledger_transactions (app, purchase_date, environment, transaction_id);
CREATE INDEX ledger_transactions_by_original ON ledger_transactions (app, environment, original_transaction_id);

CREATE FUNCTION ledger_transactions_guard() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.app <> OLD.app OR NEW.environment <> OLD.environment OR NEW.transaction_id <> OLD.transaction_id
       OR NEW.original_transaction_id <> OLD.original_transaction_id OR NEW.product_id <> OLD.product_id
       OR NEW.quantity <> OLD.quantity OR NEW.purchase_date <> OLD.purchase_date
       OR NEW.catalog_type IS DISTINCT FROM OLD.catalog_type OR NEW.created_at <> OLD.created_at THEN
        RAISE EXCEPTION USING ERRCODE = 'IC002',
            MESSAGE = 'a transaction''s identity, product, quantity, purchase date and catalog type never change';
    END IF;
    IF OLD.account_token <> '' AND NEW.account_token <> OLD.account_token THEN
        RAISE EXCEPTION USING ERRCODE = 'IC002', MESSAGE = 'a transaction is credited once: its account never changes';
    END IF;
    IF NEW.version <> OLD.version + 1 THEN
        RAISE EXCEPTION USING ERRCODE = 'IC002', MESSAGE = 'every change grows the version by exactly one';
    END IF;
    RETURN NEW;
END
$$;

CREATE TRIGGER ledger_transactions_guard BEFORE UPDATE ON ledger_transactions
    FOR EACH ROW EXECUTE FUNCTION ledger_transactions_guard();
CREATE TRIGGER ledger_transactions_no_delete BEFORE DELETE ON ledger_transactions
    FOR EACH ROW EXECUTE FUNCTION refuse_change();
CREATE TRIGGER ledger_transactions_no_truncate BEFORE TRUNCATE ON ledger_transactions
    FOR EACH STATEMENT EXECUTE FUNCTION refuse_change();

-- Every submission and notification that brought a transaction, and the account it brought it for.
CREATE TABLE ledger_sources (
    app            text COLLATE "C" NOT NULL,
    environment    store_environment NOT NULL,
    transaction_id text COLLATE "C" NOT NULL,
    source_kind    ledger_source_kind NOT NULL,
    -- The submission's id, or the notification's notificationUUID.
    source_id      uuid NOT NULL,
    account_token  text COLLATE "C" NOT NULL DEFAULT '' CHECK (iap_account_token_valid(account_token)),
    -- Whether this source recorded the transaction (the others found it in the ledger already).
    recorded       boolean NOT NULL,
    at             timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (app, environment, transaction_id, source_kind, source_id),
    FOREIGN KEY (app, environment, transaction_id) REFERENCES ledger_transactions (app, environment, transaction_id)
);

CREATE INDEX ledger_sources_by_source ON ledger_sources (source_id);

CREATE TRIGGER ledger_sources_append_only BEFORE UPDATE OR DELETE ON ledger_sources
    FOR EACH ROW EXECUTE FUNCTION refuse_change();
CREATE TRIGGER ledger_sources_no_truncate BEFORE TRUNCATE ON ledger_sources
    FOR EACH STATEMENT EXECUTE FUNCTION refuse_change();

-- App Store Server Notifications V2, each recorded once by its notificationUUID.
CREATE TABLE app_store_notifications (
    notification_uuid       uuid PRIMARY KEY,
    app                     text COLLATE "C" NOT NULL REFERENCES apps (bundle_id),
    notification_type       text NOT NULL CHECK (char_length(notification_type) BETWEEN 1 AND 100),
    subtype                 text CHECK (char_length(subtype) BETWEEN 1 AND 100),
    environment             store_environment NOT NULL,
    signed_date             timestamptz NOT NULL,
    transaction_id          text CHECK (char_length(transaction_id) BETWEEN 1 AND 200),
    original_transaction_id text CHECK (char_length(original_transaction_id) BETWEEN 1 AND 200),
    received_at             timestamptz NOT NULL DEFAULT now()
);

CREATE TRIGGER app_store_notifications_append_only BEFORE UPDATE OR DELETE ON app_store_notifications
    FOR EACH ROW EXECUTE FUNCTION refuse_change();
CREATE TRIGGER app_store_notifications_no_truncate BEFORE TRUNCATE ON app_store_notifications
    FOR EACH STATEMENT EXECUTE FUNCTION refuse_change();

-- Writing the ledger -----------------------------------------------------------------------------------------

-- An instant as the ledger's events and answers write it: RFC 3339 UTC to the millisecond.
CREATE FUNCTION iap_instant_text(instant timestamptz) RETURNS text
LANGUAGE sql STABLE AS $$
    SELECT to_char(instant AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
$$;

-- The fields of a ledger row that its history events list, as [{"field", "old", "new"}] of those that differ
-- between `before` (NULL for a new row: every field with a value) and `after`.
CREATE FUNCTION ledger_changes(before ledger_transactions, after ledger_transactions) RETURNS jsonb
LANGUAGE sql STABLE AS $$
    SELECT coalesce(jsonb_agg(jsonb_strip_nulls(jsonb_build_object('field', f.field, 'old', f.old, 'new', f.new))
                              ORDER BY f.position), '[]')
    FROM (VALUES
        (1, 'transactionId', to_jsonb(before.transaction_id), to_jsonb(after.transaction_id)),
        (2, 'environment', to_jsonb(before.environment::text), to_jsonb(after.environment::text)),
        (3, 'originalTransactionId', to_jsonb(before.original_transaction_id), to_jsonb(after.original_transaction_id)),
        (4, 'quantity', to_jsonb(before.quantity), to_jsonb(after.quantity)),
        (5, 'purchaseDate', to_jsonb(iap_instant_text(before.purchase_date)), to_jsonb(iap_instant_text(after.purchase_date))),
        (6, 'expiresDate', to_jsonb(iap_instant_text(before.expires_date)), to_jsonb(iap_instant_text(after.expires_date))),
        (7, 'revocationDate', to_jsonb(iap_instant_text(before.revocation_date)), to_jsonb(iap_instant_text(after.revocation_date))),
        (8, 'revocationReason', to_jsonb(before.revocation_reason), to_jsonb(after.revocation_reason)),
        (9, 'price', to_jsonb(before.price), to_jsonb(after.price)),
        (10, 'currency', to_jsonb(before.currency), to_jsonb(after.currency)),
        (11, 'storefront', to_jsonb(before.storefront), to_jsonb(after.storefront)),
        (12, 'appleType', to_jsonb(before.apple_type), to_jsonb(after.apple_type)),
        (13, 'catalogMismatch', to_jsonb(before.catalog_mismatch), to_jsonb(after.catalog_mismatch)),
        (14, 'accountToken', to_jsonb(nullif(before.account_token, '')), to_jsonb(nullif(after.account_token, '')))
    ) AS f(position, field, old, new)
    WHERE f.old IS DISTINCT FROM f.new
$$;

-- Merges what one source says of one transaction (`facts`, PurchaseCore's TransactionFacts as JSON) into the
-- ledger, for `account` ('' for none), and records the source. A new transaction is recorded, credited to Apple's
-- appAccountToken if it carries one, else to `account`, else (a renewal the App Store notified) to the account
-- of its original transaction. A known one gains only facts it lacked: a later expiry, a refund (or its
-- reversal), a price; its product, quantity, dates and credited account never change, so it is never credited
-- twice. Answers what happened (`recorded`, `updated` or `unchanged`), the row as it is now, and the history
-- event of the change (NULL when unchanged), which the caller appends once every row it writes is locked.
CREATE FUNCTION ledger_merge(target_app text, facts jsonb, source ledger_source_kind, source_id uuid,
                             account text, actor jsonb, reason text, request_id text,
                             OUT outcome text, OUT entry ledger_transactions, OUT event jsonb)
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

-- A submission and its transactions as the store reads them (PurchaseSubmissionRepository), each transaction
-- with whether it is credited to the submission's account and whether an earlier source had recorded it.
CREATE FUNCTION purchase_submission_json(submission purchase_submissions) RETURNS jsonb
LANGUAGE sql STABLE AS $$
    SELECT to_jsonb(submission) - 'proof_sha256' || jsonb_build_object('transactions', coalesce((
        SELECT jsonb_agg(to_jsonb(t) || jsonb_build_object('credited', t.account_token = submission.account_token,
                                                           'already_recorded', NOT s.recorded)
                         ORDER BY t.purchase_date, t.transaction_id)
        FROM ledger_sources s
        JOIN ledger_transactions t
          ON t.app = s.app AND t.environment = s.environment AND t.transaction_id = s.transaction_id
        WHERE s.source_id = submission.id AND s.source_kind = 'submission'), '[]'))
$$;

-- Queues receipts for verification (PurchaseSubmissionRepository's batches): for each item of `items`
-- ([{"app", "keyId", "accountToken", "proofSha256" (hex), "receipt"}]), its submission, once per app, account
-- and proof, with the receipt beside it, due now. Answers per item (by ordinal, from 1) whether its submission is
-- new, and the submission as purchase_submission_json gives it (a receipt sent before answers its submission as
-- it stands: pending, or final with its transactions).
CREATE FUNCTION purchases_queue_receipts(items jsonb)
RETURNS TABLE (ordinal integer, created boolean, submission jsonb)
LANGUAGE plpgsql AS $$
DECLARE
    item record;
    queued purchase_submissions;
BEGIN
    FOR item IN SELECT i.value AS body, i.position::integer AS position
                FROM jsonb_array_elements(items) WITH ORDINALITY AS i(value, position) LOOP
        INSERT INTO purchase_submissions AS s (app, key_id, account_token, kind, proof_sha256, status, next_attempt_at)
        VALUES (item.body ->> 'app', (item.body ->> 'keyId')::uuid, coalesce(item.body ->> 'accountToken', ''),
                'receipt', decode(item.body ->> 'proofSha256', 'hex'), 'queued', now())
        ON CONFLICT (app, account_token, proof_sha256) DO NOTHING
        RETURNING * INTO queued;
        IF FOUND THEN
            INSERT INTO submission_receipts (submission_id, receipt) VALUES (queued.id, item.body ->> 'receipt');
            ordinal := item.position;
            created := true;
            submission := to_jsonb(queued) - 'proof_sha256' || '{"transactions": []}';
        ELSE
            SELECT * INTO queued FROM purchase_submissions s
            WHERE s.app = item.body ->> 'app' AND s.account_token = coalesce(item.body ->> 'accountToken', '')
              AND s.proof_sha256 = decode(item.body ->> 'proofSha256', 'hex');
            ordinal := item.position;
            created := false;
            submission := purchase_submission_json(queued);
        END IF;
        RETURN NEXT;
    END LOOP;
END
$$;

-- Records verified signed transactions (PurchaseSubmissionRepository's batches): for each item of `items`
-- ([{"app", "keyId", "accountToken", "proofSha256" (hex), "environment", "facts", "actor", "reason",
-- "requestId"}], sorted by the caller by app, environment and transaction), its submission, once per app,
-- account and proof, and for a new submission its transaction merged into the ledger. The history events are
-- appended after every row is written. Answers per item (by ordinal, from 1) whether its submission is new,
-- and the submission as purchase_submission_json gives it.
CREATE FUNCTION purchases_record_signed(items jsonb)
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

-- Records the verified outcome of leased receipt submissions (the verification worker's batches): for each item
-- ([{"submissionId", "attempts", "environment", "appleStatus", "problems", "transactions": [facts...],
-- "reason", "requestId"}]), only if the submission is still leased by that attempt (status verifying with the
-- same attempts: a worker whose lease expired and was taken over records nothing), its transactions merged into
-- the ledger on behalf of the key that submitted it, the submission verified and its receipt deleted. The
-- history events are appended after every row is written. Answers the ordinals (from 1) of the items recorded.
CREATE FUNCTION purchases_record_verified(items jsonb)
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

-- Records one App Store notification (`notification`: {"notificationUUID", "app", "notificationType",
-- "subtype", "environment", "signedDate", "transactionId", "originalTransactionId", "facts", "reason",
-- "requestId"}) once: a notification already recorded changes nothing. Its transaction, when it carries one, is
-- merged into the ledger on behalf of the App Store (no key). Answers whether it is new, and what became of its
-- transaction (NULL when it had none or was a repeat).
CREATE FUNCTION purchases_record_notification(notification jsonb, OUT created boolean, OUT outcome text)
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
    IF merged.event IS NOT NULL THEN
        PERFORM history_append(merged.event);
    END IF;
END
$$;

-- Product history and point-in-time reads follow a product's own events (created, edited, action, deleted), not
-- the sales recorded under its productId, which may be many.
CREATE INDEX history_events_catalog_by_product ON history_events (app, product_id, sequence)
    WHERE kind IN ('created', 'edited', 'action', 'deleted');

DO $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'iap_service') THEN
        RETURN;
    END IF;
    GRANT SELECT, INSERT, UPDATE ON store_settings, purchase_submissions, ledger_transactions TO iap_service;
    GRANT SELECT, INSERT, DELETE ON submission_receipts TO iap_service;
    GRANT SELECT, INSERT ON ledger_sources, app_store_notifications TO iap_service;
END
$$;
