-- Fills the history with :events events over :apps apps of :products products each (about events/(apps*products)
-- events per product), as fast as PostgreSQL can write them: triggers are off for the load (superuser,
-- session_replication_role = replica), so the hashes are placeholders. This is for query plans and export
-- volume, not for verification.
SET session_replication_role = replica;
INSERT INTO apps (bundle_id, name, primary_locale)
SELECT 'com.scale.app' || a, 'Scale ' || a, 'en-US' FROM generate_series(0, :apps - 1) AS a
ON CONFLICT DO NOTHING;
INSERT INTO history_events (sequence, chain, chain_seq, at, app, product_id, product_version, kind, action,
                            from_state, to_state, actor_key_id, actor_name, actor_role, reason, changes,
                            request_id, previous_hash, hash, txid)
SELECT n, 'com.scale.app' || (n % :apps), n / :apps + 1,
       timestamptz '2026-01-01' + n * interval '1 millisecond',
       'com.scale.app' || (n % :apps), 'product.' || ((n / :apps) % :products), (n / (:apps * :products)) + 1,
       CASE WHEN n % 7 = 0 THEN 'edited'::history_kind ELSE 'action'::history_kind END,
       CASE WHEN n % 7 = 0 THEN NULL ELSE 'approve'::review_action END,
       'PENDING_DEVELOPER_APPROVAL', 'APPROVED_BY_DEVELOPER', NULL, 'loader ' || (n % 10), 'developer', NULL,
       '[{"field":"reviewNote","new":"note","old":null}]', 'req-' || n, '\x00', '\x00', '1'
FROM generate_series(1, :events) AS n;
SELECT setval('history_sequence', :events);
RESET session_replication_role;
ANALYZE history_events;
