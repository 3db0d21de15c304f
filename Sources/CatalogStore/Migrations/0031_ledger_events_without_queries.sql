-- A ledger row's history event and signals made with less of PostgreSQL's executor (issue 22; docs/performance.md,
-- "A ledger row's event without a query"). The rules are 0013's and 0020's, unchanged.
--
-- ledger_changes (0013) listed a transaction's fields as the rows of a VALUES list, kept those that changed and
-- aggregated them in order. A SQL function with a FROM is not inlined: each call started an executor for that
-- query, about 40 µs, once for every transaction recorded or updated. It is now one expression, planned once per
-- connection: the same list, in the same order, of the same values. LedgerWriteTests compares it with 0013's
-- version for new rows and for changed ones.
--
-- ledger_signals (0020) checked each account token sent with a transaction (the request's, the payload's
-- appAccountToken) through iap_account_token_valid and iap_account_key before finding it was the account credited,
-- as it nearly always is: four calls of a few µs each per transaction. A token that is the credited one's own text
-- is that account, so it is passed over before those calls. The rest of its body is 0020's.

CREATE OR REPLACE FUNCTION ledger_changes(before ledger_transactions, after ledger_transactions) RETURNS jsonb
LANGUAGE plpgsql STABLE AS $$
BEGIN
    -- A new row (`before` NULL): every field with a value.
    IF before.transaction_id IS NULL THEN
        RETURN to_jsonb(array_remove(ARRAY[
            CASE WHEN after.transaction_id IS NOT NULL
                 THEN jsonb_build_object('field', 'transactionId', 'new', to_jsonb(after.transaction_id)) END,
            CASE WHEN after.environment IS NOT NULL
                 THEN jsonb_build_object('field', 'environment', 'new', to_jsonb(after.environment::text)) END,
            CASE WHEN after.original_transaction_id IS NOT NULL
                 THEN jsonb_build_object('field', 'originalTransactionId', 'new', to_jsonb(after.original_transaction_id)) END,
            CASE WHEN after.quantity IS NOT NULL
                 THEN jsonb_build_object('field', 'quantity', 'new', to_jsonb(after.quantity)) END,
            CASE WHEN after.purchase_date IS NOT NULL
                 THEN jsonb_build_object('field', 'purchaseDate', 'new', to_jsonb(iap_instant_text(after.purchase_date))) END,
            CASE WHEN after.expires_date IS NOT NULL
                 THEN jsonb_build_object('field', 'expiresDate', 'new', to_jsonb(iap_instant_text(after.expires_date))) END,
            CASE WHEN after.revocation_date IS NOT NULL
                 THEN jsonb_build_object('field', 'revocationDate', 'new', to_jsonb(iap_instant_text(after.revocation_date))) END,
            CASE WHEN after.revocation_reason IS NOT NULL
                 THEN jsonb_build_object('field', 'revocationReason', 'new', to_jsonb(after.revocation_reason)) END,
            CASE WHEN after.price IS NOT NULL
                 THEN jsonb_build_object('field', 'price', 'new', to_jsonb(after.price)) END,
            CASE WHEN after.currency IS NOT NULL
                 THEN jsonb_build_object('field', 'currency', 'new', to_jsonb(after.currency)) END,
            CASE WHEN after.storefront IS NOT NULL
                 THEN jsonb_build_object('field', 'storefront', 'new', to_jsonb(after.storefront)) END,
            CASE WHEN after.apple_type IS NOT NULL
                 THEN jsonb_build_object('field', 'appleType', 'new', to_jsonb(after.apple_type)) END,
            CASE WHEN after.catalog_mismatch IS NOT NULL
                 THEN jsonb_build_object('field', 'catalogMismatch', 'new', to_jsonb(after.catalog_mismatch)) END,
            CASE WHEN nullif(after.account_token, '') IS NOT NULL
                 THEN jsonb_build_object('field', 'accountToken', 'new', to_jsonb(nullif(after.account_token, ''))) END
        ]::jsonb[], NULL));
    END IF;
    RETURN to_jsonb(array_remove(ARRAY[
        CASE WHEN to_jsonb(before.transaction_id)
                  IS DISTINCT FROM to_jsonb(after.transaction_id)
             THEN jsonb_strip_nulls(jsonb_build_object('field', 'transactionId',
                                                       'old', to_jsonb(before.transaction_id),
                                                       'new', to_jsonb(after.transaction_id))) END,
        CASE WHEN to_jsonb(before.environment::text)
                  IS DISTINCT FROM to_jsonb(after.environment::text)
             THEN jsonb_strip_nulls(jsonb_build_object('field', 'environment',
                                                       'old', to_jsonb(before.environment::text),
                                                       'new', to_jsonb(after.environment::text))) END,
        CASE WHEN to_jsonb(before.original_transaction_id)
                  IS DISTINCT FROM to_jsonb(after.original_transaction_id)
             THEN jsonb_strip_nulls(jsonb_build_object('field', 'originalTransactionId',
                                                       'old', to_jsonb(before.original_transaction_id),
                                                       'new', to_jsonb(after.original_transaction_id))) END,
        CASE WHEN to_jsonb(before.quantity)
                  IS DISTINCT FROM to_jsonb(after.quantity)
             THEN jsonb_strip_nulls(jsonb_build_object('field', 'quantity',
                                                       'old', to_jsonb(before.quantity),
                                                       'new', to_jsonb(after.quantity))) END,
        CASE WHEN to_jsonb(iap_instant_text(before.purchase_date))
                  IS DISTINCT FROM to_jsonb(iap_instant_text(after.purchase_date))
             THEN jsonb_strip_nulls(jsonb_build_object('field', 'purchaseDate',
                                                       'old', to_jsonb(iap_instant_text(before.purchase_date)),
                                                       'new', to_jsonb(iap_instant_text(after.purchase_date)))) END,
        CASE WHEN to_jsonb(iap_instant_text(before.expires_date))
                  IS DISTINCT FROM to_jsonb(iap_instant_text(after.expires_date))
             THEN jsonb_strip_nulls(jsonb_build_object('field', 'expiresDate',
                                                       'old', to_jsonb(iap_instant_text(before.expires_date)),
                                                       'new', to_jsonb(iap_instant_text(after.expires_date)))) END,
        CASE WHEN to_jsonb(iap_instant_text(before.revocation_date))
                  IS DISTINCT FROM to_jsonb(iap_instant_text(after.revocation_date))
             THEN jsonb_strip_nulls(jsonb_build_object('field', 'revocationDate',
                                                       'old', to_jsonb(iap_instant_text(before.revocation_date)),
                                                       'new', to_jsonb(iap_instant_text(after.revocation_date)))) END,
        CASE WHEN to_jsonb(before.revocation_reason)
                  IS DISTINCT FROM to_jsonb(after.revocation_reason)
             THEN jsonb_strip_nulls(jsonb_build_object('field', 'revocationReason',
                                                       'old', to_jsonb(before.revocation_reason),
                                                       'new', to_jsonb(after.revocation_reason))) END,
        CASE WHEN to_jsonb(before.price)
                  IS DISTINCT FROM to_jsonb(after.price)
             THEN jsonb_strip_nulls(jsonb_build_object('field', 'price',
                                                       'old', to_jsonb(before.price),
                                                       'new', to_jsonb(after.price))) END,
        CASE WHEN to_jsonb(before.currency)
                  IS DISTINCT FROM to_jsonb(after.currency)
             THEN jsonb_strip_nulls(jsonb_build_object('field', 'currency',
                                                       'old', to_jsonb(before.currency),
                                                       'new', to_jsonb(after.currency))) END,
        CASE WHEN to_jsonb(before.storefront)
                  IS DISTINCT FROM to_jsonb(after.storefront)
             THEN jsonb_strip_nulls(jsonb_build_object('field', 'storefront',
                                                       'old', to_jsonb(before.storefront),
                                                       'new', to_jsonb(after.storefront))) END,
        CASE WHEN to_jsonb(before.apple_type)
                  IS DISTINCT FROM to_jsonb(after.apple_type)
             THEN jsonb_strip_nulls(jsonb_build_object('field', 'appleType',
                                                       'old', to_jsonb(before.apple_type),
                                                       'new', to_jsonb(after.apple_type))) END,
        CASE WHEN to_jsonb(before.catalog_mismatch)
                  IS DISTINCT FROM to_jsonb(after.catalog_mismatch)
             THEN jsonb_strip_nulls(jsonb_build_object('field', 'catalogMismatch',
                                                       'old', to_jsonb(before.catalog_mismatch),
                                                       'new', to_jsonb(after.catalog_mismatch))) END,
        CASE WHEN to_jsonb(nullif(before.account_token, ''))
                  IS DISTINCT FROM to_jsonb(nullif(after.account_token, ''))
             THEN jsonb_strip_nulls(jsonb_build_object('field', 'accountToken',
                                                       'old', to_jsonb(nullif(before.account_token, '')),
                                                       'new', to_jsonb(nullif(after.account_token, '')))) END
    ]::jsonb[], NULL));
END
$$;

CREATE OR REPLACE FUNCTION ledger_signals(before ledger_transactions, after ledger_transactions, account text, facts jsonb,
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
            CONTINUE WHEN other = '' OR other = after.account_token
                OR NOT iap_account_token_valid(other) OR iap_account_key(other) = ANY (seen);
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
