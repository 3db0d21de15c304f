-- An outcome of a receipt's verification finds its submission by the primary key (docs/performance.md,
-- 2026-11-28, "Receipts").
--
-- An outcome names its row by id and checks that it is still leased: WHERE s.id = … AND s.status = 'verifying'
-- (receipt_queue_record, purchases_record_verified, SubmissionQueue's release). 0013's index of leases had that
-- same condition as its predicate, so the planner could read the row through it, filtering every leased
-- submission by id. It chose so whenever the statistics said few were leased, which is what they say after an
-- ANALYZE of a quiet moment, while the worker holds up to APPSTORE_CONCURRENCY (3,000 in the benchmark) leases:
-- each outcome then read all of them, 2 to 8 ms a receipt instead of 0.1, and the work grew with the square of
-- the leases. The index now holds the rows that have a lease, which are the leased ones (every statement that
-- ends a lease clears lease_expires_at): the lease queries still use it (their `lease_expires_at <= now()`, and
-- min()'s implied IS NOT NULL, imply its predicate), and no outcome's condition does.
DROP INDEX purchase_submissions_leases;
CREATE INDEX purchase_submissions_leases ON purchase_submissions (lease_expires_at) WHERE lease_expires_at IS NOT NULL;
