-- manyStoreAccounts checked without sorting an account's App Store accounts when it has one (issue 22;
-- docs/performance.md, "A ledger row's event without a query").
--
-- ledger_signals (0020, 0031) listed the App Store accounts of the account's other transactions in the window,
-- sorted and without repeats, for every transaction with an appTransactionId: a sort for each, and the
-- heaviest statement of a signed transaction's batch (67 µs of its 490). A list that holds no other App Store
-- account than this transaction's cannot reach the limit (at least 1), nor leave this one out, so nothing is
-- raised. Whether another is there is asked first, without sorting; the list is read only when one is. The rest
-- of the function is 0031's. AccountLedgerTests holds the rule: at N + 1 App Store accounts, not at N, not outside
-- the window, the same as PurchaseCore's.

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
    recent text[] := '{}';
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
        -- The account's App Store accounts in the window are listed (and sorted) only when another than this
        -- transaction's is there: without one, the list holds this one at most, and nothing is raised.
        IF EXISTS (SELECT FROM ledger_transactions t
                   WHERE t.app = after.app AND t.account_key = credited AND t.environment = after.environment
                     AND t.purchase_date > after.purchase_date - make_interval(hours => window_hours)
                     AND t.purchase_date <= after.purchase_date
                     AND t.app_transaction_id <> after.app_transaction_id) THEN
            SELECT coalesce(array_agg(DISTINCT t.app_transaction_id COLLATE "C" ORDER BY t.app_transaction_id COLLATE "C"),
                            '{}')
            INTO recent
            FROM ledger_transactions t
            WHERE t.app = after.app AND t.account_key = credited AND t.environment = after.environment
              AND t.purchase_date > after.purchase_date - make_interval(hours => window_hours)
              AND t.purchase_date <= after.purchase_date
              AND t.transaction_id <> after.transaction_id AND t.app_transaction_id IS NOT NULL;
        END IF;
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
