-- store_settings.shared_secret's CHECK of migration 0013 wrote its length as a repetition count, {1,256}, which
-- PostgreSQL's regular expressions refuse above 255: every secret was refused ("invalid regular expression").
-- The same rule, with the length counted apart: 1 to 256 printable ASCII characters without spaces.
ALTER TABLE store_settings DROP CONSTRAINT store_settings_shared_secret_check;
ALTER TABLE store_settings ADD CONSTRAINT store_settings_shared_secret_check
    CHECK (char_length(shared_secret) BETWEEN 1 AND 256 AND shared_secret ~ '^[\x21-\x7e]+$');
