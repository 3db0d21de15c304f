-- Xcode StoreKit configuration files (.storekit): import and export (docs/storekit.md).
--
-- 1. What a file says that the catalog does not model is kept so that an export gives it back: per product
--    (internal ids, promotional, offer-code and win-back offers, billing plans, unknown keys, the file's
--    spelling and order of localizations, groupNumber), per subscription group (its file id, unknown keys,
--    localization descriptions) and per app (the file's identifier, version, settings, app policies, offer
--    signing key and unknown top-level keys, from the latest import). None of it is a reviewed field and none
--    of it is served by the catalog's own API: it is file data, written by imports only.
-- 2. An auto-renewable subscription's localized description may hold 55 characters (App Store Connect's limit
--    for subscriptions); other types keep 45. The CHECK constraint learns the product's type.

ALTER TABLE products ADD COLUMN storekit jsonb CHECK (jsonb_typeof(storekit) = 'object');
ALTER TABLE subscription_groups ADD COLUMN storekit jsonb CHECK (jsonb_typeof(storekit) = 'object');

CREATE TABLE storekit_files (
    app         text COLLATE "C" PRIMARY KEY REFERENCES apps (bundle_id),
    -- The name the file was imported under, as the importer gave it.
    file_name   text CHECK (char_length(file_name) BETWEEN 1 AND 255),
    -- The file without its products and groups. It may hold subscriptionOffersKeyPair, Xcode's throwaway key
    -- for signing promotional offers in local tests: kept for the export, never logged.
    document    jsonb NOT NULL CHECK (jsonb_typeof(document) = 'object'),
    imported_at timestamptz NOT NULL DEFAULT now()
);

-- Whether a localizations array keeps App Store Connect's limits for a product of `product_type`.
CREATE FUNCTION iap_localizations_valid(localizations jsonb, product_type purchase_type) RETURNS boolean
LANGUAGE sql IMMUTABLE AS $$
    SELECT jsonb_typeof(localizations) = 'array'
       AND jsonb_array_length(localizations) <= 100
       AND NOT EXISTS (
           SELECT 1 FROM jsonb_array_elements(localizations) AS l(item)
           WHERE jsonb_typeof(item) <> 'object'
              OR coalesce(char_length(item ->> 'displayName'), 0) NOT BETWEEN 2 AND 30
              OR coalesce(char_length(item ->> 'description'), 0)
                     NOT BETWEEN 1 AND CASE WHEN product_type = 'AUTO_RENEWABLE_SUBSCRIPTION' THEN 55 ELSE 45 END
              OR coalesce(item ->> 'locale', '') !~ '^[a-z]{2,3}(-[A-Z][a-z]{3})?(-([A-Z]{2}|[0-9]{3}))?$'
       )
$$;

ALTER TABLE products DROP CONSTRAINT products_localizations_check;
ALTER TABLE products ADD CONSTRAINT products_localizations_check CHECK (iap_localizations_valid(localizations, type));

DO $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'iap_service') THEN
        RETURN;
    END IF;
    GRANT SELECT, INSERT, UPDATE ON storekit_files TO iap_service;
END
$$;
