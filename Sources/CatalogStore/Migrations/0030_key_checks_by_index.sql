-- The purchases' writes check their foreign keys by the index, however small the referenced table was when the
-- check's plan was made (issue 22; docs/performance.md, "Foreign keys checked by reading the ledger whole").
--
-- Each row inserted into ledger_sources and account_signals has its transaction checked in ledger_transactions,
-- and each receipt inserted into submission_receipts its submission in purchase_submissions. PostgreSQL plans
-- that check once per connection and keeps the plan. Made while the table is a page or two, as it is after a
-- new deployment's first ANALYZE (or the benchmark's), the plan reads the table whole: cheaper than the index
-- then. It is kept until the table is analyzed again, a minute later at best, while the table grows by
-- thousands of rows and every check reads all of them. In the receipts benchmark the connection that records
-- outcomes spent a whole core on those reads: 190-380 receipts verified per second and 2.3-3.6 ms of PostgreSQL
-- per receipt, against about 660 and 1.0 ms when the plan was made later.
--
-- The functions that write those rows plan with sequential scans disabled, so the checks made inside them (and
-- every other statement of theirs, each of which has its index) use the index from the first row. The bodies
-- are unchanged. IntakeBatchTests has the test: a ledger analyzed empty, then grown, is not read whole.
ALTER FUNCTION purchases_record_signed SET enable_seqscan = off;
ALTER FUNCTION purchases_queue_receipts SET enable_seqscan = off;
ALTER FUNCTION purchases_record_verified SET enable_seqscan = off;
ALTER FUNCTION purchases_record_notification SET enable_seqscan = off;
