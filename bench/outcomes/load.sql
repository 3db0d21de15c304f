-- Leased receipt submissions of one app, and their verified outcomes in batches of :size (:count batches), as
-- receipt_queue_record hands them to purchases_record_verified: each receipt one transaction, or two for about a
-- third of them (the benchmark's receipts bring 1.35 on average), each transaction new to the ledger.
INSERT INTO apps (bundle_id, name, primary_locale) VALUES ('com.bench.outcomes', 'Outcomes', 'en-US')
ON CONFLICT DO NOTHING;
INSERT INTO api_keys (name, role, apps, token_hash)
SELECT 'outcomes', 'client', '{com.bench.outcomes}', sha256('outcomes'::bytea)
WHERE NOT EXISTS (SELECT FROM api_keys WHERE name = 'outcomes');
CREATE TABLE IF NOT EXISTS outcome_batches (size integer, n integer, items jsonb NOT NULL, PRIMARY KEY (size, n));
CREATE SEQUENCE IF NOT EXISTS next_batch;

WITH made AS (
    INSERT INTO purchase_submissions (app, key_id, account_token, kind, proof_sha256, status, attempts,
                                      lease_expires_at)
    SELECT 'com.bench.outcomes', (SELECT id FROM api_keys WHERE name = 'outcomes'), gen_random_uuid()::text,
           'receipt', sha256((:size || '/' || g)::bytea), 'verifying', 1, now() + interval '1 day'
    FROM generate_series(1, :size * :count) AS g
    RETURNING id),
numbered AS (
    SELECT id, row_number() OVER (ORDER BY id) - 1 AS k, random() < 0.35 AS two FROM made),
receipts AS (
    INSERT INTO submission_receipts (submission_id, receipt) SELECT id, 'UkVDRUlQVA==' FROM numbered)
INSERT INTO outcome_batches (size, n, items)
SELECT :size, k / :size + 1, jsonb_agg(jsonb_build_object(
           'submissionId', id, 'attempts', 1, 'status', 'verified', 'environment', 'Production', 'appleStatus', 0,
           'problems', '[]'::jsonb, 'malformed', false, 'reason', 'receipt verified by the App Store',
           'ordinal', k % :size + 1,
           'transactions', (SELECT jsonb_agg(jsonb_build_object(
                                'environment', 'Production', 'transactionId', id::text || '-' || t,
                                'originalTransactionId', id::text || '-' || t, 'productId', 'coins',
                                'appleType', 'Consumable', 'applePurchaseType', 'CONSUMABLE', 'quantity', 1,
                                'purchaseDate', '2026-11-01T10:00:00.000Z', 'refundReversed', false,
                                'price', 990, 'currency', 'USD') ORDER BY t)
                            FROM generate_series(1, CASE WHEN two THEN 2 ELSE 1 END) AS t))
       ORDER BY k)
FROM numbered GROUP BY k / :size;
