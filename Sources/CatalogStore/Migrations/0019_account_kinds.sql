-- The history kind accounts add (issue 23). PostgreSQL cannot use a value added by ALTER TYPE ... ADD VALUE in the
-- transaction that added it, and each migration is one transaction: the functions that write it come in the next
-- migration.
--
-- signal_raised: the ledger noticed irregular activity (a transaction shared by two accounts, one account buying
-- from many App Store accounts) or a refund, in the same transaction as the ledger change that raised it.

ALTER TYPE history_kind ADD VALUE 'signal_raised';
