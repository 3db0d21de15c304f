-- The signals' look for an account's other App Store accounts reads its index, however the ledger looked when
-- its plan was made (issue 22; docs/performance.md, "A new machine; token checks, ids, the signals' look-up").
--
-- ledger_signals (0032) asks, for each transaction written with an account and an App Store account, whether the
-- account has another App Store account in the window. PostgreSQL plans that question once per connection and
-- keeps the plan until the ledger is analyzed again. Made while the ledger was a page or two (a new deployment's
-- first minutes, the benchmark's warm-up), the plan was as cheap by the primary key (app, environment, ...) or
-- by ledger_transactions_by_original as by ledger_transactions_by_account, and the planner took one of the
-- first two: each transaction written then read all of the app's transactions in its environment (3 to 4.5 ms a
-- look-up in the benchmark's warm-up, by auto_explain; 5,600 index entries a look-up in AccountLedgerTests). 0030
-- kept such plans off the table itself by disabling sequential scans; an index read whole is not one.
--
-- The question is now the first row in the order of ledger_transactions_by_account, the only index that gives
-- rows in that order, and ledger_signals plans with sorts disabled: every other path needs a sort, so none is
-- chosen, whatever the statistics. The answer is the same (the first row exists exactly when any row does). The
-- rest of the function is 0032's. AccountLedgerTests has the test: a plan made on a ledger of a few pages, then
-- 5,000 other accounts' transactions; a look-up reads a few entries.

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
        -- In the order of ledger_transactions_by_account, the one index that has it (see the head of 0035).
        IF (SELECT true FROM ledger_transactions t
            WHERE t.app = after.app AND t.account_key = credited AND t.environment = after.environment
              AND t.purchase_date > after.purchase_date - make_interval(hours => window_hours)
              AND t.purchase_date <= after.purchase_date
              AND t.app_transaction_id <> after.app_transaction_id
            ORDER BY t.app, t.account_key, t.environment, t.purchase_date
            LIMIT 1) THEN
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

-- Per call; the function's other statements sort nothing a plan could avoid (its aggregates sort their own input).
ALTER FUNCTION ledger_signals(ledger_transactions, ledger_transactions, text, jsonb, ledger_source_kind, uuid, jsonb, text)
    SET enable_sort = off;
