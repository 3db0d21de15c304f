-- pgbench script for bench/run.sh's "ceiling" step: sixteen actions made the way the service makes them under
-- load: each product read on its own (ProductRepository.findWithApp), then all sixteen changes written by one
-- statement shaped as ProductRepository.SaveStates (the product rows locked in (app, product_id) order, the
-- compare-and-set updates of the rows locked, their rows sorted, then each event appended by history_append) and
-- one commit, as LifecycleBatches writes concurrent actions. No HTTP
-- server in the way: what PostgreSQL alone commits of the service's statements on this machine.
--
--   pgbench -M prepared -n -c 32 -j 2 -T 20 -D apps=32 -D per_app=100 -D prefix=com.example.actions \
--     -D key_id=<uuid> -f bench/ceiling/batch.sql <database>
--
-- Client c works on app <prefix>NN, NN = c mod apps + 1, on sixteen consecutive products from a random one,
-- each product making the action its state allows (submit_change from READY_FOR_SALE, withdraw from
-- WAITING_FOR_REVIEW). Unlike the service, the statement reads the states it changes itself, so every change
-- applies; bench/ceiling/action.sql makes one action per transaction with the service's two statements.
\set app (:client_id % :apps) + 1
\set k random(1, :per_app - 16)
SELECT p.product_id AS pid0, length(a::text) + length(p::text) AS size0
FROM apps a LEFT JOIN products p ON p.app = a.bundle_id AND p.product_id = format('%s.%s%s', a.bundle_id,
    (ARRAY['coins', 'gems', 'pass', 'skin', 'bundle'])[1 + (:k + 0) % 5], lpad((:k + 0)::text, 4, '0'))
WHERE a.bundle_id = :prefix || lpad(:app::text, 2, '0') \gset
SELECT p.product_id AS pid1, length(a::text) + length(p::text) AS size1
FROM apps a LEFT JOIN products p ON p.app = a.bundle_id AND p.product_id = format('%s.%s%s', a.bundle_id,
    (ARRAY['coins', 'gems', 'pass', 'skin', 'bundle'])[1 + (:k + 1) % 5], lpad((:k + 1)::text, 4, '0'))
WHERE a.bundle_id = :prefix || lpad(:app::text, 2, '0') \gset
SELECT p.product_id AS pid2, length(a::text) + length(p::text) AS size2
FROM apps a LEFT JOIN products p ON p.app = a.bundle_id AND p.product_id = format('%s.%s%s', a.bundle_id,
    (ARRAY['coins', 'gems', 'pass', 'skin', 'bundle'])[1 + (:k + 2) % 5], lpad((:k + 2)::text, 4, '0'))
WHERE a.bundle_id = :prefix || lpad(:app::text, 2, '0') \gset
SELECT p.product_id AS pid3, length(a::text) + length(p::text) AS size3
FROM apps a LEFT JOIN products p ON p.app = a.bundle_id AND p.product_id = format('%s.%s%s', a.bundle_id,
    (ARRAY['coins', 'gems', 'pass', 'skin', 'bundle'])[1 + (:k + 3) % 5], lpad((:k + 3)::text, 4, '0'))
WHERE a.bundle_id = :prefix || lpad(:app::text, 2, '0') \gset
SELECT p.product_id AS pid4, length(a::text) + length(p::text) AS size4
FROM apps a LEFT JOIN products p ON p.app = a.bundle_id AND p.product_id = format('%s.%s%s', a.bundle_id,
    (ARRAY['coins', 'gems', 'pass', 'skin', 'bundle'])[1 + (:k + 4) % 5], lpad((:k + 4)::text, 4, '0'))
WHERE a.bundle_id = :prefix || lpad(:app::text, 2, '0') \gset
SELECT p.product_id AS pid5, length(a::text) + length(p::text) AS size5
FROM apps a LEFT JOIN products p ON p.app = a.bundle_id AND p.product_id = format('%s.%s%s', a.bundle_id,
    (ARRAY['coins', 'gems', 'pass', 'skin', 'bundle'])[1 + (:k + 5) % 5], lpad((:k + 5)::text, 4, '0'))
WHERE a.bundle_id = :prefix || lpad(:app::text, 2, '0') \gset
SELECT p.product_id AS pid6, length(a::text) + length(p::text) AS size6
FROM apps a LEFT JOIN products p ON p.app = a.bundle_id AND p.product_id = format('%s.%s%s', a.bundle_id,
    (ARRAY['coins', 'gems', 'pass', 'skin', 'bundle'])[1 + (:k + 6) % 5], lpad((:k + 6)::text, 4, '0'))
WHERE a.bundle_id = :prefix || lpad(:app::text, 2, '0') \gset
SELECT p.product_id AS pid7, length(a::text) + length(p::text) AS size7
FROM apps a LEFT JOIN products p ON p.app = a.bundle_id AND p.product_id = format('%s.%s%s', a.bundle_id,
    (ARRAY['coins', 'gems', 'pass', 'skin', 'bundle'])[1 + (:k + 7) % 5], lpad((:k + 7)::text, 4, '0'))
WHERE a.bundle_id = :prefix || lpad(:app::text, 2, '0') \gset
SELECT p.product_id AS pid8, length(a::text) + length(p::text) AS size8
FROM apps a LEFT JOIN products p ON p.app = a.bundle_id AND p.product_id = format('%s.%s%s', a.bundle_id,
    (ARRAY['coins', 'gems', 'pass', 'skin', 'bundle'])[1 + (:k + 8) % 5], lpad((:k + 8)::text, 4, '0'))
WHERE a.bundle_id = :prefix || lpad(:app::text, 2, '0') \gset
SELECT p.product_id AS pid9, length(a::text) + length(p::text) AS size9
FROM apps a LEFT JOIN products p ON p.app = a.bundle_id AND p.product_id = format('%s.%s%s', a.bundle_id,
    (ARRAY['coins', 'gems', 'pass', 'skin', 'bundle'])[1 + (:k + 9) % 5], lpad((:k + 9)::text, 4, '0'))
WHERE a.bundle_id = :prefix || lpad(:app::text, 2, '0') \gset
SELECT p.product_id AS pid10, length(a::text) + length(p::text) AS size10
FROM apps a LEFT JOIN products p ON p.app = a.bundle_id AND p.product_id = format('%s.%s%s', a.bundle_id,
    (ARRAY['coins', 'gems', 'pass', 'skin', 'bundle'])[1 + (:k + 10) % 5], lpad((:k + 10)::text, 4, '0'))
WHERE a.bundle_id = :prefix || lpad(:app::text, 2, '0') \gset
SELECT p.product_id AS pid11, length(a::text) + length(p::text) AS size11
FROM apps a LEFT JOIN products p ON p.app = a.bundle_id AND p.product_id = format('%s.%s%s', a.bundle_id,
    (ARRAY['coins', 'gems', 'pass', 'skin', 'bundle'])[1 + (:k + 11) % 5], lpad((:k + 11)::text, 4, '0'))
WHERE a.bundle_id = :prefix || lpad(:app::text, 2, '0') \gset
SELECT p.product_id AS pid12, length(a::text) + length(p::text) AS size12
FROM apps a LEFT JOIN products p ON p.app = a.bundle_id AND p.product_id = format('%s.%s%s', a.bundle_id,
    (ARRAY['coins', 'gems', 'pass', 'skin', 'bundle'])[1 + (:k + 12) % 5], lpad((:k + 12)::text, 4, '0'))
WHERE a.bundle_id = :prefix || lpad(:app::text, 2, '0') \gset
SELECT p.product_id AS pid13, length(a::text) + length(p::text) AS size13
FROM apps a LEFT JOIN products p ON p.app = a.bundle_id AND p.product_id = format('%s.%s%s', a.bundle_id,
    (ARRAY['coins', 'gems', 'pass', 'skin', 'bundle'])[1 + (:k + 13) % 5], lpad((:k + 13)::text, 4, '0'))
WHERE a.bundle_id = :prefix || lpad(:app::text, 2, '0') \gset
SELECT p.product_id AS pid14, length(a::text) + length(p::text) AS size14
FROM apps a LEFT JOIN products p ON p.app = a.bundle_id AND p.product_id = format('%s.%s%s', a.bundle_id,
    (ARRAY['coins', 'gems', 'pass', 'skin', 'bundle'])[1 + (:k + 14) % 5], lpad((:k + 14)::text, 4, '0'))
WHERE a.bundle_id = :prefix || lpad(:app::text, 2, '0') \gset
SELECT p.product_id AS pid15, length(a::text) + length(p::text) AS size15
FROM apps a LEFT JOIN products p ON p.app = a.bundle_id AND p.product_id = format('%s.%s%s', a.bundle_id,
    (ARRAY['coins', 'gems', 'pass', 'skin', 'bundle'])[1 + (:k + 15) % 5], lpad((:k + 15)::text, 4, '0'))
WHERE a.bundle_id = :prefix || lpad(:app::text, 2, '0') \gset
WITH change AS (
    SELECT p.app, p.product_id, p.version, p.state,
           CASE p.state WHEN 'READY_FOR_SALE' THEN 'WAITING_FOR_REVIEW' ELSE 'READY_FOR_SALE' END::review_state AS next,
           CASE p.state WHEN 'READY_FOR_SALE' THEN 'submit_change' ELSE 'withdraw' END AS action
    FROM generate_series(:k, :k + 15) AS n, products p
    WHERE p.app = :prefix || lpad(:app::text, 2, '0')
      AND p.product_id = format('%s.%s%s', p.app, (ARRAY['coins', 'gems', 'pass', 'skin', 'bundle'])[1 + n % 5],
                                lpad(n::text, 4, '0'))
), locked AS (
    SELECT p.ctid AS row, p.app, p.product_id FROM products p
    WHERE (p.app, p.product_id) IN (SELECT app, product_id FROM change)
    ORDER BY p.app, p.product_id
    FOR NO KEY UPDATE OF p
), changed AS (
    UPDATE products p SET state = c.next, version = p.version + 1, last_change = c.action,
        cleared_for_sale = p.cleared_for_sale, submitted_from = CASE WHEN c.action = 'submit_change' THEN c.state END,
        ever_submitted = p.ever_submitted OR c.action = 'submit_change', updated_at = now()
    FROM locked l JOIN change c ON c.app = l.app AND c.product_id = l.product_id
    WHERE p.ctid = l.row AND p.version = c.version AND p.state = c.state
    RETURNING p.app, p.product_id, p.version, c.action, c.state AS from_state, c.next
)
SELECT history_append(jsonb_build_object(
    'app', app, 'productId', product_id, 'productVersion', version, 'kind', 'action', 'action', action,
    'fromState', from_state::text, 'toState', next::text, 'actor', jsonb_build_object('keyId', :key_id::text,
    'name', 'bench ceiling', 'role', 'admin'), 'changes', '[]'::jsonb, 'requestId', gen_random_uuid()::text))
FROM (SELECT * FROM changed ORDER BY app, product_id) AS saved;
