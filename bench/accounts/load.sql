-- Fills the ledger with :transactions transactions of one app (com.scale.accounts) bought by :accounts accounts
-- (about transactions/accounts each), plus :other_apps other apps' as many again, for the plans of one account's
-- reads. Each account's tokens are made as the server makes them (HMAC aside: a SHA-256 of its number stands for
-- the digest): half its transactions carry its applicationUsername, half its appAccountToken, so the account key
-- ties both. Triggers are off for the load (superuser, session_replication_role = replica); generated columns
-- (account_key) are computed all the same.
SET session_replication_role = replica;
INSERT INTO apps (bundle_id, name, primary_locale)
SELECT bundle_id, 'Scale ' || bundle_id, 'en-US'
FROM (SELECT 'com.scale.accounts' AS bundle_id UNION ALL
      SELECT 'com.scale.other' || a FROM generate_series(1, :other_apps) AS a) AS apps
ON CONFLICT DO NOTHING;
INSERT INTO ledger_transactions (app, environment, transaction_id, original_transaction_id, product_id, apple_type,
                                 catalog_type, catalog_mismatch, quantity, purchase_date, expires_date,
                                 revocation_date, price, currency, storefront, app_transaction_id, account_token)
SELECT app, CASE WHEN n % 10 = 0 THEN 'Sandbox' ELSE 'Production' END::store_environment,
       (2000000000000000 + n)::text, (2000000000000000 + n)::text, 'product.' || (n % 50),
       CASE n % 3 WHEN 0 THEN 'Consumable' WHEN 1 THEN 'Non-Consumable' ELSE 'Auto-Renewable Subscription' END,
       NULL, true, 1, timestamptz '2026-01-01' + n * interval '10 seconds',
       CASE WHEN n % 3 = 2 THEN timestamptz '2026-01-31' + n * interval '10 seconds' END,
       CASE WHEN n % 97 = 0 THEN timestamptz '2026-06-01' END, 990, 'USD', 'USA',
       'store-' || (n % 7919),
       CASE WHEN n % 2 = 0 THEN iap_uuid_v4_of(substring(digest from 1 for 16))::text
            ELSE regexp_replace(encode(digest, 'hex'), '(.{8})(?!$)', '\1-', 'g') END
FROM (SELECT n, CASE WHEN n <= :transactions THEN 'com.scale.accounts'
                     ELSE 'com.scale.other' || (1 + n % :other_apps) END AS app,
             sha256(('account ' || (n % :accounts))::bytea) AS digest
      FROM generate_series(1, :transactions * (1 + :other_apps)) AS n) AS rows;
RESET session_replication_role;
ANALYZE ledger_transactions;
