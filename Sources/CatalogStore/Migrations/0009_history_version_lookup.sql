-- products_require_history looks for the event of a product's new version on every product write. The only
-- index it could use was history_events_by_product (app, product_id, sequence), so it read every event the
-- product ever had and filtered them by version: a cost that grew with each change, until an action on a
-- product with a few hundred versions spent more time in this check than in anything else it did
-- (docs/performance.md). With the version in an index the check is one lookup, however long the history.
CREATE INDEX history_events_by_product_version ON history_events (app, product_id, product_version);
