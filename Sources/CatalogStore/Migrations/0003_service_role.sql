-- The service runs as a role that can do what the API does and nothing more; a separate owner role (the one
-- that runs these migrations) owns the tables. The service role cannot UPDATE, DELETE or TRUNCATE history,
-- nor move the chain heads, nor drop or disable a trigger (only an owner can): the append-only triggers are
-- the second line, not the only one.
--
-- `iap_service` is a group role without login; a deployment grants it to the login role the service uses
-- (`scripts/serve` makes `iap_app`; docs/operations.md shows the statements). Making it needs CREATEROLE:
-- where the migrating role lacks it, the grants below are skipped with a notice and the service keeps the
-- owner's privileges.
--
-- The service may read the chain heads (for verification) but not write them.

DO $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'iap_service') THEN
        CREATE ROLE iap_service NOLOGIN;
    END IF;
EXCEPTION
    -- Roles belong to the whole cluster: another database's migration may have made it a moment ago.
    WHEN duplicate_object OR unique_violation THEN NULL;
    WHEN insufficient_privilege THEN RAISE NOTICE 'cannot create role iap_service (no CREATEROLE): the service will run with the owner''s privileges';
END
$$;

-- The chain is linked with the owner's rights, so that the service needs none on history_chains.
ALTER FUNCTION history_link() SECURITY DEFINER SET search_path = public, pg_temp;

DO $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'iap_service') THEN
        RETURN;
    END IF;
    EXECUTE format('GRANT CONNECT ON DATABASE %I TO iap_service', current_database());
    GRANT USAGE ON SCHEMA public TO iap_service;
    -- The chain heads are read by verification; only history_link (as the owner) moves them.
    GRANT SELECT ON schema_migrations, review_transitions, history_chains TO iap_service;
    GRANT SELECT, INSERT, UPDATE ON apps, subscription_groups, api_keys TO iap_service;
    GRANT SELECT, INSERT, UPDATE, DELETE ON products, idempotency_keys TO iap_service;
    GRANT SELECT, INSERT ON product_id_reservations, history_events TO iap_service;
END
$$;
