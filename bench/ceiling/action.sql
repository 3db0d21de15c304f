-- pgbench script for bench/run.sh's "ceiling" step: one action made the way the service makes it (the app and
-- the product read in one statement, then the compare-and-set update with its history event in another), with
-- no HTTP server in the way. It gives PostgreSQL's own actions/s on this machine: an upper bound for the
-- service, which shares the cores with it.
--
--   pgbench -M prepared -n -c 32 -j 2 -T 20 -D apps=32 -D per_app=100 -D prefix=com.example.actions \
--     -D key_id=<uuid> -D write=1 -D history=1 -f bench/ceiling/action.sql <database>
--
-- Client c works on app <prefix>NN, NN = c mod apps + 1, so 32 clients on 32 apps never wait for each other's
-- chain head (the wrk step's 32 connections spread over the same apps). Each transaction takes a random
-- product of its app and makes the action its state allows: submit_change from READY_FOR_SALE, withdraw
-- from WAITING_FOR_REVIEW (the actions apps hold only those two states).
--
-- The parts of an action are priced with the same statements (docs/performance.md): -D write=0 makes only the
-- read; -D history=0 makes the update without its history event, which the products_require_history trigger
-- refuses unless the triggers are off (PGOPTIONS='-c session_replication_role=replica', as a superuser).
\set app (:client_id % :apps) + 1
\set k random(1, :per_app)
-- The read: the service's findWithApp, by the product's key (named as bench/load.sql names product n of an app:
-- <app>.<kind><n, 4 digits>, kind by n mod 5), every column of the app and the product produced, as the
-- service reads them (length(p::text)). A name that finds no product leaves :version empty, and the update's
-- cast of it fails: pgbench aborts rather than count actions that changed nothing.
SELECT p.product_id AS pid, p.state AS state, p.version AS version, length(a::text) + length(p::text) AS size,
       CASE p.state WHEN 'READY_FOR_SALE' THEN 'WAITING_FOR_REVIEW' ELSE 'READY_FOR_SALE' END AS next,
       CASE p.state WHEN 'READY_FOR_SALE' THEN 'submit_change' ELSE 'withdraw' END AS action
FROM apps a
LEFT JOIN products p ON p.app = a.bundle_id AND p.product_id = format('%s.%s%s', a.bundle_id,
    (ARRAY['coins', 'gems', 'pass', 'skin', 'bundle'])[1 + :k % 5], lpad(:k::text, 4, '0'))
WHERE a.bundle_id = :prefix || lpad(:app::text, 2, '0') \gset
-- The write: ProductRepository.SaveState's statement (an action that changes only the lifecycle columns, as
-- submit_change and withdraw do), the event appended by history_append in the same statement.
\if :write
WITH changed AS (
    UPDATE products SET
        state = :next::review_state, version = version + 1, last_change = :action, cleared_for_sale = cleared_for_sale,
        submitted_from = CASE WHEN :action = 'submit_change' THEN state END,
        ever_submitted = ever_submitted OR :action = 'submit_change', updated_at = now()
    WHERE app = :prefix || lpad(:app::text, 2, '0') AND product_id = :pid AND version = :version
      AND state = :state::review_state
    RETURNING app, product_id, version)
SELECT CASE WHEN :history = 1 THEN history_append(jsonb_build_object(
    'app', app, 'productId', product_id, 'productVersion', version, 'kind', 'action', 'action', :action::text,
    'fromState', :state::text, 'toState', :next::text, 'actor', jsonb_build_object('keyId', :key_id::text, 'name', 'bench ceiling',
    'role', 'admin'), 'changes', '[]'::jsonb, 'requestId', gen_random_uuid()::text)) END
FROM changed;
\endif
