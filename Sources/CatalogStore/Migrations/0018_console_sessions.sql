-- The console's sessions (docs/console.md): a person signs in with an API key once and the browser keeps only
-- a random session id in an HttpOnly cookie, never the key.
--
-- The id is 32 random bytes; only its SHA-256 is stored, as for keys, so that a copy of this table opens no
-- session. The CSRF secret is the form token of the session's pages; it is never in a cookie. A session lives
-- until `expires_at`, and no longer than its key: every lookup joins the key and refuses a revoked or expired
-- one, so that revoking a key ends its sessions at the next request; the trigger below also removes them.

CREATE TABLE console_sessions (
    id_hash     bytea PRIMARY KEY CHECK (octet_length(id_hash) = 32),
    key_id      uuid NOT NULL REFERENCES api_keys (id) ON DELETE CASCADE,
    csrf_secret bytea NOT NULL CHECK (octet_length(csrf_secret) = 32),
    created_at  timestamptz NOT NULL DEFAULT now(),
    expires_at  timestamptz NOT NULL,
    CHECK (expires_at > created_at)
);

CREATE INDEX console_sessions_by_key ON console_sessions (key_id);
CREATE INDEX console_sessions_by_expiry ON console_sessions (expires_at);

-- A revoked key's sessions go with it, in the revocation's own transaction.
CREATE FUNCTION console_sessions_end_with_key() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM console_sessions WHERE key_id = NEW.id;
    RETURN NULL;
END
$$;

CREATE TRIGGER api_keys_end_console_sessions AFTER UPDATE OF revoked_at ON api_keys
    FOR EACH ROW WHEN (NEW.revoked_at IS NOT NULL) EXECUTE FUNCTION console_sessions_end_with_key();

DO $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'iap_service') THEN
        RETURN;
    END IF;
    GRANT SELECT, INSERT, DELETE ON console_sessions TO iap_service;
END
$$;
