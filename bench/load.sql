-- The benchmark catalog, loaded into a migrated IAP Catalog database through the real lifecycle.
--
--   psql -v apps=200 -v per_app=50 ... -f bench/load.sql      (bench/run.sh does this; defaults below)
--
-- psql variables (bench/run.sh passes them, from the same BENCH_* settings as the peers' setup.sh):
--   apps, per_app, ready_pct, hot_app, hot_products, hot_ready_pct   -- exactly the peers' data set
--   actions_prefix, actions_apps, actions_per_app                    -- the transition benchmark's apps:
--                                          <prefix>01, <prefix>02, ..., each with actions_per_app products
--   batch                                                            -- products per statement (see below)
--
-- The product identifiers and which products are on sale are computed with the peers' formulas
-- (/work/shared/bench/peers/db/load.sql), so that every identifier list is byte-identical to theirs:
--   product id  format('%s.%s%s', bundle_id, kind, lpad(n, 4, '0')), kind = coins/gems/pass/skin/bundle by n % 5
--   on sale     abs(hashtext(bundle_id || '/' || n)) % 100 < pct
--
-- Nothing is written behind the schema's back: the triggers stay on, every product is created in
-- PENDING_DEVELOPER_APPROVAL and every change grows its version and appends its history event in the same
-- statement (history_append, hash-chained per app), as the service's ProductRepository does:
--   apps (app_created) -> one subscription group per app (group_created) -> products (created)
--   -> for the products on sale: approve -> submit -> start_review -> accept (live_content = the reviewed
--      content, as ReviewedContent's JSON) -> for the actions app only: an edit of reviewNote, so that each
--      of its products is READY_FOR_SALE with a pending change (submit_change / withdraw can alternate).
-- Products not on sale stay PENDING_DEVELOPER_APPROVAL (complete, so they could be approved).
--
-- Every step is a set-based statement (a data-modifying CTE and history_append over its RETURNING rows), run
-- once per batch of about :batch products, each batch committed on its own with the chain heads vacuumed after
-- it. Since migration 0005 (history_chains.chain COLLATE "C", like history_events.chain) history_link finds a
-- chain head by its primary key, so one statement per step would no longer read the whole of history_chains
-- for every event, and the batches are not needed for speed at this size (3,200 products: 24.0 s in one
-- statement per step, 23.5 s in batches). They are kept because a transaction cannot prune the row versions
-- it writes itself: every event adds a version of its app's chain head, every new product one of its app's
-- row (product_count), and each lookup walks that app's versions so far, so one transaction over all of an
-- app's events grows quadratically with their number (the 100,000-product catalog has 500 per app and step).
-- Committed batches of :batch products, vacuumed between, keep those chains short and show progress.
-- Where the time goes instead: history_link hashes each event's canonical JSON, and iap_canonical_json
-- (recursive PL/pgSQL, one planned query per JSON node) costs about 2 ms per "created" event.
\set ON_ERROR_STOP on
\if :{?apps} \else \set apps 200 \endif
\if :{?per_app} \else \set per_app 50 \endif
\if :{?ready_pct} \else \set ready_pct 40 \endif
\if :{?hot_app} \else \set hot_app com.example.hot \endif
\if :{?hot_products} \else \set hot_products 500 \endif
\if :{?hot_ready_pct} \else \set hot_ready_pct :ready_pct \endif
\if :{?actions_prefix} \else \set actions_prefix com.example.actions \endif
\if :{?actions_apps} \else \set actions_apps 32 \endif
\if :{?actions_per_app} \else \set actions_per_app 100 \endif
\if :{?batch} \else \set batch 500 \endif
\set actor '{"name":"bench loader","role":"admin"}'
-- The big statements would otherwise be compiled by LLVM for nothing.
SET jit = off;
-- Many events per chain in each transaction: history_link keeps the chain head's place (migration 0011).
SET iap.history_bulk = on;

-- Every (app, n) with its kind, whether it goes on sale and its batch: the peers' generator, plus the actions
-- app (all of its products on sale).
CREATE TEMP TABLE bench_products AS
WITH app_list AS (
    SELECT format('com.example.app%s', lpad(a::text, 4, '0')) AS bundle_id, format('Example App %s', a) AS name,
           :per_app AS products, :ready_pct AS pct, a AS ord, false AS actions
    FROM generate_series(1, :apps) AS a
    UNION ALL SELECT :'hot_app', 'Hot App', :hot_products, :hot_ready_pct, :apps + 1, false
    UNION ALL SELECT format('%s%s', :'actions_prefix', lpad(i::text, 2, '0')), format('Actions App %s', i),
                     :actions_per_app, 100, :apps + 1 + i, true
              FROM generate_series(1, :actions_apps) AS i
), src AS (
    SELECT l.bundle_id, l.name AS app_name, l.ord, l.actions, n,
           (ARRAY['coins','gems','pass','skin','bundle'])[1 + n % 5] AS kind,
           abs(hashtext(l.bundle_id || '/' || n)) % 100 < l.pct AS on_sale,
           abs(hashtext(l.bundle_id || '#' || n)) AS h2
    FROM app_list l CROSS JOIN LATERAL generate_series(1, l.products) AS n
)
SELECT bundle_id AS app, app_name, ord, actions, n, kind, on_sale, h2,
       -- bench/ceiling/action.sql names the actions apps' products the same way, to read them by key.
       format('%s.%s%s', bundle_id, kind, lpad(n::text, 4, '0')) AS product_id,
       (row_number() OVER (ORDER BY ord, n) - 1) / :batch AS batch
FROM src;
CREATE UNIQUE INDEX ON bench_products (app, product_id);
CREATE INDEX ON bench_products (batch);
ANALYZE bench_products;

-- 1. Apps, each with its app_created event (the changes the API records: name, newsstand, primaryLocale).
WITH created AS (
    INSERT INTO apps (bundle_id, name, primary_locale)
    SELECT DISTINCT ON (ord) app, app_name, 'en-US' FROM bench_products ORDER BY ord
    RETURNING bundle_id, name, newsstand, primary_locale)
SELECT count(history_append(jsonb_build_object(
           'kind', 'app_created', 'app', bundle_id, 'actor', :'actor'::jsonb,
           'changes', jsonb_build_array(
               jsonb_build_object('field', 'name', 'new', name),
               jsonb_build_object('field', 'newsstand', 'new', newsstand),
               jsonb_build_object('field', 'primaryLocale', 'new', primary_locale)))))
       AS apps_created
FROM created;
VACUUM history_chains;

-- 2. One subscription group per app, for its auto-renewable "pass" products.
WITH created AS (
    INSERT INTO subscription_groups (app, reference_name, localizations)
    SELECT bundle_id, 'Passes', '[{"locale":"en-US","name":"Passes"}]'::jsonb FROM apps
    RETURNING app, id, reference_name, localizations)
SELECT count(history_append(jsonb_build_object(
           'kind', 'group_created', 'app', app, 'actor', :'actor'::jsonb,
           'changes', jsonb_build_array(
               jsonb_build_object('field', 'id', 'new', upper(id::text)),
               jsonb_build_object('field', 'referenceName', 'new', reference_name),
               jsonb_build_object('field', 'localizations', 'new', localizations)))))
       AS groups_created
FROM created;
VACUUM history_chains;

-- 3. Products, complete for approval: price > 0, an en-US localization, and for subscriptions a group, a
--    level unique within it and a duration. The created event carries the creation changes as the API
--    records them (Product.creationChanges), so that point-in-time reads can replay it.
PREPARE create_products(bigint) AS
WITH created AS (
    INSERT INTO products (app, product_id, type, reference_name, price_currency, price_amount, localizations,
                          subscription_group_id, level, duration)
    SELECT b.app, b.product_id,
           (CASE b.kind WHEN 'pass' THEN 'AUTO_RENEWABLE_SUBSCRIPTION'
                        WHEN 'coins' THEN 'CONSUMABLE' WHEN 'gems' THEN 'CONSUMABLE'
                        ELSE 'NON_CONSUMABLE' END)::purchase_type,
           format('%s %s', initcap(b.kind), b.n),
           'USD', (1 + b.h2 % 87) - 0.01,
           jsonb_build_array(jsonb_build_object(
               'locale', 'en-US',
               'displayName', format('%s %s', initcap(b.kind), lpad(b.n::text, 4, '0')),
               'description', format('A %s for your game, number %s', b.kind, b.n))),
           CASE WHEN b.kind = 'pass' THEN g.id END,
           CASE WHEN b.kind = 'pass' THEN b.n END,
           CASE WHEN b.kind = 'pass' THEN 'P1M' END
    FROM bench_products b JOIN subscription_groups g ON g.app = b.app
    WHERE b.batch = $1
    ORDER BY b.app, b.product_id
    RETURNING app, product_id, version, state, type, reference_name, price_currency, price_amount, localizations,
              subscription_group_id, level, duration)
SELECT count(history_append(jsonb_build_object(
           'kind', 'created', 'app', app, 'productId', product_id, 'productVersion', version,
           'toState', state, 'actor', :'actor'::jsonb,
           'changes', jsonb_build_array(
                   jsonb_build_object('field', 'productId', 'new', product_id),
                   jsonb_build_object('field', 'type', 'new', type),
                   jsonb_build_object('field', 'referenceName', 'new', reference_name),
                   jsonb_build_object('field', 'price', 'new',
                                      jsonb_build_object('amount', price_amount::text, 'currency', price_currency)),
                   jsonb_build_object('field', 'localizations', 'new', localizations))
               || CASE WHEN subscription_group_id IS NULL THEN '[]'::jsonb ELSE jsonb_build_array(
                   jsonb_build_object('field', 'subscriptionGroupId', 'new', upper(subscription_group_id::text)),
                   jsonb_build_object('field', 'level', 'new', level),
                   jsonb_build_object('field', 'duration', 'new', duration)) END)))
FROM created;

-- 4. The products on sale go through review: approve, submit, start_review, accept. Each is a compare-and-set
--    UPDATE (on the state) with the action events; the trigger checks every move against review_transitions.
PREPARE approve(bigint) AS
WITH moved AS (
    UPDATE products p SET state = 'APPROVED_BY_DEVELOPER', version = p.version + 1, last_change = 'approve',
                          updated_at = now()
    FROM bench_products b
    WHERE b.batch = $1 AND b.on_sale AND p.app = b.app AND p.product_id = b.product_id
      AND p.state = 'PENDING_DEVELOPER_APPROVAL'
    RETURNING p.app, p.product_id, p.version)
SELECT count(history_append(jsonb_build_object(
           'kind', 'action', 'action', 'approve', 'app', app, 'productId', product_id, 'productVersion', version,
           'fromState', 'PENDING_DEVELOPER_APPROVAL', 'toState', 'APPROVED_BY_DEVELOPER', 'actor', :'actor'::jsonb)))
FROM moved;

PREPARE submit(bigint) AS
WITH moved AS (
    UPDATE products p SET state = 'WAITING_FOR_REVIEW', version = p.version + 1, last_change = 'submit',
                          submitted_from = 'APPROVED_BY_DEVELOPER', ever_submitted = true, updated_at = now()
    FROM bench_products b
    WHERE b.batch = $1 AND b.on_sale AND p.app = b.app AND p.product_id = b.product_id
      AND p.state = 'APPROVED_BY_DEVELOPER'
    RETURNING p.app, p.product_id, p.version)
SELECT count(history_append(jsonb_build_object(
           'kind', 'action', 'action', 'submit', 'app', app, 'productId', product_id, 'productVersion', version,
           'fromState', 'APPROVED_BY_DEVELOPER', 'toState', 'WAITING_FOR_REVIEW', 'actor', :'actor'::jsonb)))
FROM moved;

PREPARE start_review(bigint) AS
WITH moved AS (
    UPDATE products p SET state = 'IN_REVIEW', version = p.version + 1, last_change = 'start_review',
                          submitted_from = NULL, updated_at = now()
    FROM bench_products b
    WHERE b.batch = $1 AND b.on_sale AND p.app = b.app AND p.product_id = b.product_id
      AND p.state = 'WAITING_FOR_REVIEW'
    RETURNING p.app, p.product_id, p.version)
SELECT count(history_append(jsonb_build_object(
           'kind', 'action', 'action', 'start_review', 'app', app, 'productId', product_id, 'productVersion', version,
           'fromState', 'WAITING_FOR_REVIEW', 'toState', 'IN_REVIEW', 'actor', :'actor'::jsonb)))
FROM moved;

-- accept publishes the reviewed content as the live revision: ReviewedContent's JSON (keys localizations,
-- reviewNote, familyShareable, subscriptionGroupID, level, duration; absent values omitted, as JSONEncoder
-- does; UUIDs upper-case, as Foundation writes them), recorded in the event as the change of "live".
PREPARE accept(bigint) AS
WITH moved AS (
    UPDATE products p SET state = 'READY_FOR_SALE', version = p.version + 1, last_change = 'accept',
                          live_content = jsonb_strip_nulls(jsonb_build_object(
                              'localizations', p.localizations, 'reviewNote', p.review_note,
                              'familyShareable', p.family_shareable,
                              'subscriptionGroupID', upper(p.subscription_group_id::text),
                              'level', p.level, 'duration', p.duration)),
                          updated_at = now()
    FROM bench_products b
    WHERE b.batch = $1 AND b.on_sale AND p.app = b.app AND p.product_id = b.product_id
      AND p.state = 'IN_REVIEW' AND p.cleared_for_sale
    RETURNING p.app, p.product_id, p.version, p.live_content)
SELECT count(history_append(jsonb_build_object(
           'kind', 'action', 'action', 'accept', 'app', app, 'productId', product_id, 'productVersion', version,
           'fromState', 'IN_REVIEW', 'toState', 'READY_FOR_SALE', 'actor', :'actor'::jsonb,
           'changes', jsonb_build_array(jsonb_build_object('field', 'live', 'new', live_content)))))
FROM moved;

-- 5. The actions app: a pending change on every product (the working reviewNote differs from the live
--    revision), so that submit_change is allowed from READY_FOR_SALE and withdraw returns there.
PREPARE pending_change(bigint) AS
WITH edited AS (
    UPDATE products p SET review_note = 'Pending change for the next review', version = p.version + 1,
                          last_change = 'edit', updated_at = now()
    FROM bench_products b
    WHERE b.batch = $1 AND b.actions AND p.app = b.app AND p.product_id = b.product_id
      AND p.state = 'READY_FOR_SALE'
    RETURNING p.app, p.product_id, p.version, p.review_note)
SELECT count(history_append(jsonb_build_object(
           'kind', 'edited', 'app', app, 'productId', product_id, 'productVersion', version,
           'actor', :'actor'::jsonb,
           'changes', jsonb_build_array(jsonb_build_object('field', 'reviewNote', 'new', review_note)))))
FROM edited;

-- Run every step over every batch, each statement in its own transaction, the chain heads vacuumed after each.
\o /dev/null
SELECT s
FROM (VALUES (1, 'create_products'), (2, 'approve'), (3, 'submit'), (4, 'start_review'), (5, 'accept'),
             (6, 'pending_change')) AS step(i, name)
CROSS JOIN (SELECT DISTINCT batch FROM bench_products) AS b
CROSS JOIN LATERAL (VALUES (1, format('EXECUTE %s(%s)', step.name, b.batch)), (2, 'VACUUM history_chains')) AS v(j, s)
WHERE step.name <> 'pending_change'
   OR b.batch IN (SELECT batch FROM bench_products WHERE actions)
ORDER BY step.i, b.batch, v.j
\gexec
\o

VACUUM ANALYZE;

SELECT count(*) AS apps, sum(product_count) AS products FROM apps;
SELECT count(*) FILTER (WHERE on_sale) AS on_sale,
       count(*) FILTER (WHERE on_sale AND app NOT LIKE :'actions_prefix' || '%') AS on_sale_peer_apps,
       count(*) FILTER (WHERE state = 'PENDING_DEVELOPER_APPROVAL') AS pending,
       count(*) FILTER (WHERE app LIKE :'actions_prefix' || '%' AND state = 'READY_FOR_SALE' AND live_content IS NOT NULL
                          AND review_note IS DISTINCT FROM live_content ->> 'reviewNote') AS actions_ready_with_change
FROM products;
SELECT count(*) AS history_events FROM history_events;
