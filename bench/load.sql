-- The benchmark catalog, loaded into a migrated IAP Catalog database through the real lifecycle.
--
-- psql variables (bench/run.sh passes them, from the same BENCH_* settings as the peers' setup.sh):
--   apps, per_app, ready_pct, hot_app, hot_products, hot_ready_pct   -- exactly the peers' data set
--   actions_app, actions_products                                    -- the transition benchmark's app
--
-- The product identifiers and which products are on sale are computed with the peers' formulas
-- (/work/shared/bench/peers/db/load.sql), so that every identifier list is byte-identical to theirs:
--   product id  format('%s.%s%s', bundle_id, kind, lpad(n, 4, '0')), kind = coins/gems/pass/skin/bundle by n % 5
--   on sale     abs(hashtext(bundle_id || '/' || n)) % 100 < pct
--
-- Nothing is written behind the schema's back: the triggers stay on, every product is created in
-- PENDING_DEVELOPER_APPROVAL and every change grows its version and appends its history event in the same
-- statement (history_append, hash-chained per app), as the service's ProductRepository does. Each step is
-- one set-based statement for all the rows it moves:
--   apps (app_created) -> one subscription group per app (group_created) -> products (created)
--   -> for the products on sale: approve -> submit -> start_review -> accept (live_content = the reviewed
--      content, as ReviewedContent's JSON) -> for the actions app only: an edit of reviewNote, so that each
--      of its products is READY_FOR_SALE with a pending change (submit_change / withdraw can alternate).
-- Products not on sale stay PENDING_DEVELOPER_APPROVAL (complete, so they could be approved).
--
-- Each step commits on its own (psql autocommit), and the chain heads and app rows are vacuumed between
-- steps: within one statement every event updates its chain head (history_chains) and every new product its
-- app's product_count, and versions written by the running transaction cannot be pruned, so these tiny tables
-- grow by one row version per event while the statement runs. PostgreSQL plans the triggers' lookups of them
-- as sequential scans (they are small), which makes one big statement quadratic; enable_seqscan = off makes
-- those lookups use the primary keys for this session. (A run of the service never sees this: it writes one
-- event per statement.) jit = off: the big statements would otherwise be compiled for nothing.
\set ON_ERROR_STOP on
\set actor '{"name":"bench loader","role":"admin"}'
SET jit = off;
SET enable_seqscan = off;

-- Every (app, n) with its kind and whether it goes on sale: the peers' generator, plus the actions app.
CREATE TEMP TABLE bench_src AS
WITH app_list AS (
    SELECT format('com.example.app%s', lpad(a::text, 4, '0')) AS bundle_id, format('Example App %s', a) AS name,
           :per_app AS products, :ready_pct AS pct, a AS ord
    FROM generate_series(1, :apps) AS a
    UNION ALL SELECT :'hot_app', 'Hot App', :hot_products, :hot_ready_pct, :apps + 1
    UNION ALL SELECT :'actions_app', 'Actions App', :actions_products, 100, :apps + 2
)
SELECT l.bundle_id, l.name AS app_name, l.ord, n,
       (ARRAY['coins','gems','pass','skin','bundle'])[1 + n % 5] AS kind,
       abs(hashtext(l.bundle_id || '/' || n)) % 100 < l.pct AS on_sale,
       abs(hashtext(l.bundle_id || '#' || n)) AS h2
FROM app_list l CROSS JOIN LATERAL generate_series(1, l.products) AS n;

CREATE TEMP TABLE bench_products AS
SELECT bundle_id AS app, format('%s.%s%s', bundle_id, kind, lpad(n::text, 4, '0')) AS product_id,
       kind, n, on_sale, h2
FROM bench_src;
CREATE UNIQUE INDEX ON bench_products (app, product_id);
ANALYZE bench_src;
ANALYZE bench_products;

-- 1. Apps, each with its app_created event (the changes the API records: name, newsstand, primaryLocale).
WITH created AS (
    INSERT INTO apps (bundle_id, name, primary_locale)
    SELECT DISTINCT ON (ord) bundle_id, app_name, 'en-US' FROM bench_src ORDER BY ord
    RETURNING bundle_id, name, newsstand, primary_locale)
SELECT count(history_append(jsonb_build_object(
           'kind', 'app_created', 'app', bundle_id, 'actor', :'actor'::jsonb,
           'changes', jsonb_build_array(
               jsonb_build_object('field', 'name', 'new', name),
               jsonb_build_object('field', 'newsstand', 'new', newsstand),
               jsonb_build_object('field', 'primaryLocale', 'new', primary_locale)))))
       AS apps_created
FROM created;
VACUUM history_chains, apps;

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
VACUUM history_chains, apps;

-- 3. Products, complete for approval: price > 0, an en-US localization, and for subscriptions a group, a
--    level unique within it and a duration. The created event carries the creation changes as the API
--    records them (Product.creationChanges), so that point-in-time reads can replay it.
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
       AS products_created
FROM created;
VACUUM history_chains, apps;

-- 4. The products on sale go through review: approve, submit, start_review, accept. Each step is one
--    compare-and-set UPDATE of all of them with their action events; the trigger checks every move against
--    review_transitions.
WITH moved AS (
    UPDATE products p SET state = 'APPROVED_BY_DEVELOPER', version = p.version + 1, last_change = 'approve',
                          updated_at = now()
    FROM bench_products b
    WHERE b.on_sale AND p.app = b.app AND p.product_id = b.product_id AND p.state = 'PENDING_DEVELOPER_APPROVAL'
    RETURNING p.app, p.product_id, p.version)
SELECT count(history_append(jsonb_build_object(
           'kind', 'action', 'action', 'approve', 'app', app, 'productId', product_id, 'productVersion', version,
           'fromState', 'PENDING_DEVELOPER_APPROVAL', 'toState', 'APPROVED_BY_DEVELOPER', 'actor', :'actor'::jsonb)))
       AS approved
FROM moved;
VACUUM history_chains, apps;

WITH moved AS (
    UPDATE products p SET state = 'WAITING_FOR_REVIEW', version = p.version + 1, last_change = 'submit',
                          submitted_from = 'APPROVED_BY_DEVELOPER', ever_submitted = true, updated_at = now()
    FROM bench_products b
    WHERE b.on_sale AND p.app = b.app AND p.product_id = b.product_id AND p.state = 'APPROVED_BY_DEVELOPER'
    RETURNING p.app, p.product_id, p.version)
SELECT count(history_append(jsonb_build_object(
           'kind', 'action', 'action', 'submit', 'app', app, 'productId', product_id, 'productVersion', version,
           'fromState', 'APPROVED_BY_DEVELOPER', 'toState', 'WAITING_FOR_REVIEW', 'actor', :'actor'::jsonb)))
       AS submitted
FROM moved;
VACUUM history_chains, apps;

WITH moved AS (
    UPDATE products p SET state = 'IN_REVIEW', version = p.version + 1, last_change = 'start_review',
                          submitted_from = NULL, updated_at = now()
    FROM bench_products b
    WHERE b.on_sale AND p.app = b.app AND p.product_id = b.product_id AND p.state = 'WAITING_FOR_REVIEW'
    RETURNING p.app, p.product_id, p.version)
SELECT count(history_append(jsonb_build_object(
           'kind', 'action', 'action', 'start_review', 'app', app, 'productId', product_id, 'productVersion', version,
           'fromState', 'WAITING_FOR_REVIEW', 'toState', 'IN_REVIEW', 'actor', :'actor'::jsonb)))
       AS in_review
FROM moved;
VACUUM history_chains, apps;

-- accept publishes the reviewed content as the live revision: ReviewedContent's JSON (keys localizations,
-- reviewNote, familyShareable, subscriptionGroupID, level, duration; absent values omitted, as JSONEncoder
-- does), recorded in the event as the change of "live".
WITH moved AS (
    UPDATE products p SET state = 'READY_FOR_SALE', version = p.version + 1, last_change = 'accept',
                          live_content = jsonb_strip_nulls(jsonb_build_object(
                              'localizations', p.localizations, 'reviewNote', p.review_note,
                              'familyShareable', p.family_shareable,
                              'subscriptionGroupID', upper(p.subscription_group_id::text),
                              'level', p.level, 'duration', p.duration)),
                          updated_at = now()
    FROM bench_products b
    WHERE b.on_sale AND p.app = b.app AND p.product_id = b.product_id AND p.state = 'IN_REVIEW'
      AND p.cleared_for_sale
    RETURNING p.app, p.product_id, p.version, p.live_content)
SELECT count(history_append(jsonb_build_object(
           'kind', 'action', 'action', 'accept', 'app', app, 'productId', product_id, 'productVersion', version,
           'fromState', 'IN_REVIEW', 'toState', 'READY_FOR_SALE', 'actor', :'actor'::jsonb,
           'changes', jsonb_build_array(jsonb_build_object('field', 'live', 'new', live_content)))))
       AS accepted
FROM moved;
VACUUM history_chains, apps;

-- 5. The actions app: a pending change on every product (the working reviewNote differs from the live
--    revision), so that submit_change is allowed from READY_FOR_SALE and withdraw returns there.
WITH edited AS (
    UPDATE products p SET review_note = 'Pending change for the next review', version = p.version + 1,
                          last_change = 'edit', updated_at = now()
    WHERE p.app = :'actions_app' AND p.state = 'READY_FOR_SALE'
    RETURNING p.app, p.product_id, p.version, p.review_note)
SELECT count(history_append(jsonb_build_object(
           'kind', 'edited', 'app', app, 'productId', product_id, 'productVersion', version,
           'actor', :'actor'::jsonb,
           'changes', jsonb_build_array(jsonb_build_object('field', 'reviewNote', 'new', review_note)))))
       AS actions_pending_changes
FROM edited;
VACUUM history_chains, apps;

RESET enable_seqscan;
VACUUM ANALYZE;

SELECT count(*) AS apps, sum(product_count) AS products FROM apps;
SELECT count(*) FILTER (WHERE on_sale) AS on_sale,
       count(*) FILTER (WHERE on_sale AND app NOT IN (:'actions_app')) AS on_sale_peer_apps,
       count(*) FILTER (WHERE state = 'PENDING_DEVELOPER_APPROVAL') AS pending
FROM products;
SELECT count(*) AS history_events FROM history_events;
