-- The receipt verification queue (docs/purchases.md "The queue"; CatalogStore's SubmissionQueue, the server's
-- ReceiptVerificationService): what it needs beyond 0013's submissions.
--
-- A worker leases due submissions (status verifying, attempts + 1, lease_expires_at) with FOR UPDATE SKIP LOCKED,
-- so that several processes share the queue and a lease that expires (a process killed) is due again. The
-- attempts a lease set are its identity: an outcome is recorded only while the submission is verifying with the
-- same attempts, so a worker whose lease expired and was taken over records nothing.

-- How many attempts were answered 21002 (malformed data, or a temporary issue Apple cannot tell apart): the
-- fourth makes the receipt invalid (PurchaseCore's ReceiptSubmissionRule).
ALTER TABLE purchase_submissions
    ADD COLUMN malformed_answers integer NOT NULL DEFAULT 0 CHECK (malformed_answers >= 0);

-- Records the outcomes of leased attempts, in one statement and one transaction for a whole batch of them:
-- for each item of `items` ([{"submissionId", "attempts", "status", "environment", "appleStatus", "problems",
-- "malformed", "nextAttemptAt", "transactions", "reason", "requestId"}]), only if the submission is still leased
-- by that attempt:
--   - verified: its transactions merged into the ledger by purchases_record_verified (0013), with their history;
--   - invalid: final, Apple's status and meaning kept, the receipt deleted (it will never verify);
--   - retrying: due again at nextAttemptAt;
--   - failed: final until an operator retries it; the receipt kept for that retry.
-- Answers the ordinals (from 1) of the items recorded.
CREATE FUNCTION receipt_queue_record(items jsonb)
RETURNS TABLE (ordinal integer)
LANGUAGE plpgsql AS $$
DECLARE
    verified jsonb;
BEGIN
    RETURN QUERY
    WITH outcome AS (
        SELECT i.position::integer AS position, i.value AS body
        FROM jsonb_array_elements(items) WITH ORDINALITY AS i(value, position)
        WHERE i.value ->> 'status' IN ('invalid', 'retrying', 'failed')
    ), recorded AS (
        UPDATE purchase_submissions s SET
            status = (o.body ->> 'status')::submission_status,
            environment = coalesce((o.body ->> 'environment')::store_environment, s.environment),
            apple_status = (o.body ->> 'appleStatus')::integer,
            problems = coalesce(o.body -> 'problems', '[]'),
            malformed_answers = s.malformed_answers
                + CASE WHEN coalesce((o.body ->> 'malformed')::boolean, false) THEN 1 ELSE 0 END,
            next_attempt_at = CASE WHEN o.body ->> 'status' = 'retrying'
                                   THEN (o.body ->> 'nextAttemptAt')::timestamptz END,
            lease_expires_at = NULL,
            updated_at = now(),
            finished_at = CASE WHEN o.body ->> 'status' <> 'retrying' THEN now() END
        FROM outcome o
        WHERE s.id = (o.body ->> 'submissionId')::uuid AND s.status = 'verifying'
          AND s.attempts = (o.body ->> 'attempts')::integer
        RETURNING o.position, s.id, s.status
    ), forgotten AS (
        DELETE FROM submission_receipts r USING recorded
        WHERE r.submission_id = recorded.id AND recorded.status = 'invalid'
    )
    SELECT recorded.position FROM recorded;

    SELECT jsonb_agg(i.value || jsonb_build_object('ordinal', i.position) ORDER BY i.position) INTO verified
    FROM jsonb_array_elements(items) WITH ORDINALITY AS i(value, position)
    WHERE i.value ->> 'status' = 'verified';
    IF verified IS NOT NULL THEN
        -- purchases_record_verified answers positions in `verified`; each item there carries its own in `items`.
        RETURN QUERY
        SELECT (verified -> (v.ordinal - 1) ->> 'ordinal')::integer FROM purchases_record_verified(verified) AS v;
    END IF;
END
$$;

-- The queue's due work is read by the partial indexes of 0013 (queued and retrying by next_attempt_at, verifying
-- by lease_expires_at); the service's role already may update submissions and delete receipts.
