-- An outcome of a receipt's verification finds its submission by the primary key (docs/performance.md,
-- 2026-11-28, "Receipts").
--
-- The outcome's UPDATE named its row by id and checked that it was still leased: WHERE s.id = … AND s.status =
-- 'verifying'. That condition is also the predicate of 0013's partial index of leases, so the planner may read
-- the row through that index, filtering every leased submission by id. It chooses so when the statistics say
-- few are leased, which is what they say after an ANALYZE of a quiet moment, while the worker holds up to
-- APPSTORE_CONCURRENCY (3,000 in the benchmark) leases: each outcome then read all of them, 2 to 8 ms a receipt
-- instead of 0.1, and the work grew with the square of the leases. The status is now compared as text, which
-- no partial index's predicate matches: the row is found by its id, and the status checked on it. The rest of
-- both functions is as 0016 and 0023 wrote them; SubmissionQueue's release does the same.

-- 0016's receipt_queue_record.
CREATE OR REPLACE FUNCTION receipt_queue_record(items jsonb)
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
        WHERE s.id = (o.body ->> 'submissionId')::uuid AND s.status::text = 'verifying'
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

-- 0023's purchases_record_verified.
CREATE OR REPLACE FUNCTION purchases_record_verified(items jsonb)
RETURNS TABLE (ordinal integer)
LANGUAGE plpgsql AS $$
DECLARE
    item record;
    facts jsonb;
    submission purchase_submissions;
    actor jsonb;
    merged record;
    events jsonb[] := '{}';
    recorded integer[] := '{}';
BEGIN
    FOR item IN SELECT i.value AS body, i.position::integer AS position
                FROM jsonb_array_elements(items) WITH ORDINALITY AS i(value, position) LOOP
        UPDATE purchase_submissions s SET
            status = 'verified', environment = (item.body ->> 'environment')::store_environment,
            apple_status = (item.body ->> 'appleStatus')::integer,
            problems = coalesce(item.body -> 'problems', '[]'), next_attempt_at = NULL, lease_expires_at = NULL,
            updated_at = now(), finished_at = now()
        WHERE s.id = (item.body ->> 'submissionId')::uuid AND s.status::text = 'verifying'
          AND s.attempts = (item.body ->> 'attempts')::integer
        RETURNING * INTO submission;
        CONTINUE WHEN NOT FOUND;
        SELECT jsonb_build_object('keyId', k.id, 'name', k.name, 'role', k.role) INTO actor
        FROM api_keys k WHERE k.id = submission.key_id;
        FOR facts IN SELECT value FROM jsonb_array_elements(coalesce(item.body -> 'transactions', '[]')) LOOP
            SELECT * INTO merged FROM ledger_merge(
                submission.app, facts, 'submission', submission.id, submission.account_token, actor,
                item.body ->> 'reason', item.body ->> 'requestId');
            IF merged.event IS NOT NULL THEN events := events || merged.event; END IF;
            events := events || merged.signals;
        END LOOP;
        DELETE FROM submission_receipts r WHERE r.submission_id = submission.id;
        recorded := recorded || item.position;
    END LOOP;
    PERFORM set_config('iap.history_bulk', 'on', true);
    PERFORM history_append_all(events);
    RETURN QUERY SELECT unnest(recorded);
END
$$;
