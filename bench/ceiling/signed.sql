-- pgbench script for bench/run.sh's "purchases" step: batches of signed transactions recorded with the service's
-- statement (purchases_record_signed, as PurchaseSubmissionRepository.recordSigned writes a batch of verified
-- transactions), each transaction new, one commit per batch. No HTTP server and no verification in the way: what
-- PostgreSQL alone records of the service's batches on this machine. The batch's items are made in the same
-- statement, shaped as the benchmark's (an account with its App Store account, Sandbox, one product), which adds
-- about 6 % to PostgreSQL's work.
--
--   pgbench -M prepared -n -c 2 -j 2 -T 20 -D app=com.example.bench -D product=com.example.bench.removeads \
--     -D key_id=<a client key's id> -D size=27 -f bench/ceiling/signed.sql <database>
\set seed random(1, 1000000000000)
SELECT count(*) FROM purchases_record_signed((
    SELECT jsonb_agg(jsonb_build_object(
        'app', :app::text, 'keyId', :key_id::text, 'accountToken', md5(n::text)::uuid::text,
        'proofSha256', encode(sha256(n::text::bytea), 'hex'), 'environment', 'Sandbox',
        'facts', jsonb_build_object(
            'environment', 'Sandbox', 'transactionId', n::text, 'originalTransactionId', n::text,
            'productId', :product::text, 'appleType', 'Non-Consumable', 'quantity', 1,
            'purchaseDate', '2026-12-06T13:15:01.748Z', 'originalPurchaseDate', '2026-12-06T13:15:01.748Z',
            'refundReversed', false, 'price', 2990, 'currency', 'USD', 'storefront', 'USA',
            'appTransactionId', (n + 1)::text, 'inAppOwnershipType', 'PURCHASED', 'transactionReason', 'PURCHASE',
            'appAccountToken', md5(n::text)::uuid::text),
        'actor', jsonb_build_object('keyId', :key_id::text, 'name', 'bench/ceiling/signed.sql', 'role', 'client'),
        'reason', 'signed transaction submitted', 'requestId', 'ceiling-' || n) ORDER BY g)
    FROM generate_series(1, :size::integer) AS g, LATERAL (SELECT 3000000000000000 + :seed::bigint * 100 + g AS n) AS id));
