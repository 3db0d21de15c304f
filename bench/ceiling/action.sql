-- pgbench script for bench/run.sh's "ceiling" step: one action made the way the service makes it (the app and
-- the product read in one statement, then the compare-and-set update with its history event in another), with
-- no HTTP server in the way. It gives PostgreSQL's own actions/s on this machine: an upper bound for the
-- service, which shares the cores with it.
--
--   pgbench -M prepared -n -c 32 -j 2 -T 20 -D apps=32 -D per_app=100 -D prefix=com.example.actions \
--     -D key_id=<uuid> -f bench/ceiling/action.sql <database>
--
-- Client c works on app <prefix>NN, NN = c mod apps + 1, so 32 clients on 32 apps never wait for each other's
-- chain head (the wrk step's 32 connections spread over the same apps). Each transaction takes a random
-- product of its app and makes the action its state allows: submit_change from READY_FOR_SALE, withdraw
-- from WAITING_FOR_REVIEW (the actions apps hold only those two states).
\set app (:client_id % :apps) + 1
\set k random(0, :per_app - 1)
-- The read: the service's findWithApp returns every column of the app and the product; length(p::text) makes
-- PostgreSQL produce them all as the service's read does.
SELECT p.product_id AS pid, p.state AS state, p.version AS version, length(a::text) + length(p::text) AS size,
       CASE p.state WHEN 'READY_FOR_SALE' THEN 'WAITING_FOR_REVIEW' ELSE 'READY_FOR_SALE' END AS next,
       CASE p.state WHEN 'READY_FOR_SALE' THEN 'submit_change' ELSE 'withdraw' END AS action
FROM apps a
CROSS JOIN LATERAL (SELECT * FROM products WHERE app = a.bundle_id ORDER BY product_id OFFSET :k LIMIT 1) p
WHERE a.bundle_id = :prefix || lpad(:app::text, 2, '0') \gset
-- The write: ProductRepository.Save's statement, every column set (the JSON columns parsed again from text,
-- as the service binds them) and the event appended by history_append in the same statement.
WITH changed AS (
    UPDATE products SET
        state = :next::review_state, version = version + 1, last_change = :action, reference_name = reference_name,
        price_currency = price_currency, price_amount = price_amount::text::numeric,
        territory_prices = territory_prices::text::jsonb, introductory_offer = introductory_offer::text::jsonb,
        cleared_for_sale = cleared_for_sale, localizations = localizations::text::jsonb, review_note = review_note,
        family_shareable = family_shareable, subscription_group_id = subscription_group_id, level = level,
        duration = duration, live_content = live_content::text::jsonb,
        submitted_from = CASE WHEN :action = 'submit_change' THEN state ELSE submitted_from END,
        ever_submitted = ever_submitted OR :action = 'submit_change', updated_at = now()
    WHERE app = :prefix || lpad(:app::text, 2, '0') AND product_id = :pid AND version = :version
      AND state = :state::review_state
    RETURNING app, product_id, version)
SELECT history_append(jsonb_build_object(
    'app', app, 'productId', product_id, 'productVersion', version, 'kind', 'action', 'action', :action::text,
    'fromState', :state::text, 'toState', :next::text, 'actor', jsonb_build_object('keyId', :key_id::text, 'name', 'bench ceiling',
    'role', 'admin'), 'changes', '[]'::jsonb, 'requestId', gen_random_uuid()::text))
FROM changed;
