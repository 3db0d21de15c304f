-- The localizations CHECK of products, as PL/pgSQL with the same result as 0006's SQL function for every
-- input (LocalizationsCheckTests compares them). A SQL function that runs a query cannot be inlined, so
-- PostgreSQL parsed and planned its body again for every statement that wrote a product: about a sixth of the
-- database's work for an action (docs/performance.md). PL/pgSQL keeps its compiled body for the session, and
-- these plain expressions run without starting a query.
CREATE OR REPLACE FUNCTION iap_localizations_valid(localizations jsonb, product_type purchase_type) RETURNS boolean
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
    item jsonb;
    longest_description integer := CASE WHEN product_type = 'AUTO_RENEWABLE_SUBSCRIPTION' THEN 55 ELSE 45 END;
BEGIN
    IF localizations IS NULL THEN
        RETURN NULL;
    END IF;
    IF jsonb_typeof(localizations) <> 'array' OR jsonb_array_length(localizations) > 100 THEN
        RETURN false;
    END IF;
    FOR i IN 0 .. jsonb_array_length(localizations) - 1 LOOP
        item := localizations -> i;
        IF jsonb_typeof(item) <> 'object'
           OR coalesce(char_length(item ->> 'displayName'), 0) NOT BETWEEN 2 AND 30
           OR coalesce(char_length(item ->> 'description'), 0) NOT BETWEEN 1 AND longest_description
           OR coalesce(item ->> 'locale', '') !~ '^[a-z]{2,3}(-[A-Z][a-z]{3})?(-([A-Z]{2}|[0-9]{3}))?$' THEN
            RETURN false;
        END IF;
    END LOOP;
    RETURN true;
END
$$;
