-- Every server keeps the API keys it has authenticated in memory, so that a request does not read its key
-- from the database each time. A key that is revoked (or changed or deleted by hand) must stop working at
-- once on every server: the change notifies in its transaction, so every listening server hears of it exactly
-- when it is committed and forgets the keys it holds. A server that is not listening (its connection lost)
-- keeps no keys until it listens again.

CREATE FUNCTION notify_api_keys() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('api_keys', CASE WHEN TG_OP = 'TRUNCATE' THEN '' ELSE OLD.id::text END);
    RETURN NULL;
END
$$;

CREATE TRIGGER api_keys_notify AFTER UPDATE OR DELETE ON api_keys
    FOR EACH ROW EXECUTE FUNCTION notify_api_keys();
CREATE TRIGGER api_keys_notify_truncate AFTER TRUNCATE ON api_keys
    FOR EACH STATEMENT EXECUTE FUNCTION notify_api_keys();
