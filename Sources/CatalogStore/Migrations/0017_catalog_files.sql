-- Catalog files (issue 25): the price rule by type, and constraints a whole plan may pass through.
--
-- 1. products_price_by_type repeats CatalogCore's PriceRule (DESIGN.md "Purchase types"): a free subscription's
--    price is zero, a non-consumable's zero or above (a free non-consumable is how a paid app offers a free
--    trial, App Store Review Guideline 3.1.1), every other type's above zero. Until now the database allowed any
--    amount of zero or above for every type. Territory prices live in jsonb and are checked by CatalogCore only.
-- 2. A catalog file applied in one transaction may swap two products' reference names or two subscriptions'
--    levels: the state it leaves is valid, the steps between are not. The two uniqueness rules become
--    deferrable (still checked at once unless a transaction defers them, as the apply does with SET CONSTRAINTS
--    ... DEFERRED): products_reference_name_unique is re-created DEFERRABLE, and products_level_unique, a partial
--    unique index (which cannot be deferred), becomes an exclusion constraint of the same name with the same
--    predicate, which can. Both keep their names, so that their violations map to the same sentences.

ALTER TABLE products ADD CONSTRAINT products_price_by_type CHECK (
    price_amount IS NULL
    OR CASE type
        WHEN 'FREE_SUBSCRIPTION' THEN price_amount = 0
        WHEN 'NON_CONSUMABLE' THEN price_amount >= 0
        ELSE price_amount > 0
    END
);

ALTER TABLE products DROP CONSTRAINT products_reference_name_unique;
ALTER TABLE products ADD CONSTRAINT products_reference_name_unique UNIQUE (app, reference_name)
    DEFERRABLE INITIALLY IMMEDIATE;

DROP INDEX products_level_unique;
ALTER TABLE products ADD CONSTRAINT products_level_unique
    EXCLUDE USING btree (app WITH =, subscription_group_id WITH =, level WITH =)
    WHERE (level IS NOT NULL AND subscription_group_id IS NOT NULL AND state <> 'REJECTED')
    DEFERRABLE INITIALLY IMMEDIATE;
