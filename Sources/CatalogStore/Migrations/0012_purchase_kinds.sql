-- The enum values purchases add to existing types (issue 22). PostgreSQL cannot use a value added by
-- ALTER TYPE ... ADD VALUE in the transaction that added it, and each migration is one transaction: the tables
-- and constraints that use these values come in the next migration (0013).
--
-- key_role 'client': a key that ships inside a client app, limited to exactly one app (0013 makes the database
-- refuse any other), which may submit purchases and read the submissions it made.
-- history_kind: a change of an app's store settings (never the shared secret's value), and a transaction
-- recorded in the ledger or a later fact added to it (a renewal's expiry, a refund).

ALTER TYPE key_role ADD VALUE 'client';
ALTER TYPE history_kind ADD VALUE 'store_settings_changed';
ALTER TYPE history_kind ADD VALUE 'transaction_recorded';
ALTER TYPE history_kind ADD VALUE 'transaction_updated';
