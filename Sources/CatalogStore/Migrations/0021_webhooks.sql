-- Webhooks (issue 24; docs/events.md, docs/decisions.md "Webhooks: the history is the outbox").
--
-- The outbox is the history itself: every change already appends its event in its own transaction, so an event
-- to deliver is durable exactly when the change is. Each endpoint keeps a cursor over the history
-- (delivered_through): the events numbered after it that the endpoint's filters select are still to be
-- delivered, in sequence order. The cursor moves only after the receiver has answered 2xx, so a process killed
-- between a change and its delivery leaves the event to be delivered by whoever takes the endpoint next (at
-- least once). Nothing is written per event on the change's side: no trigger, no row per endpoint per event.
--
-- Several processes share the endpoints by leases (lease_holder, lease_until), taken with FOR UPDATE SKIP
-- LOCKED and renewed while held: one process delivers to an endpoint at a time, which keeps its order; a lease
-- that is not renewed (a killed process) expires and the endpoint is taken again from its cursor. The
-- deliverer's writes name the lease and the generation they started from; redelivery (which moves the cursor
-- back) bumps the generation, so that a deliverer that read the old cursor cannot move it forward again.
--
-- The secret is stored as its 32 bytes, readable by the service that signs with it; no statement of the
-- service answers it after creation, history records the endpoint's origin and filters only (never the path
-- and query, which may hold a receiver's token, nor the secret).

ALTER TYPE history_kind ADD VALUE 'webhook_created';
ALTER TYPE history_kind ADD VALUE 'webhook_deleted';
ALTER TYPE history_kind ADD VALUE 'webhook_disabled';
ALTER TYPE history_kind ADD VALUE 'webhook_redelivered';

CREATE TABLE webhook_endpoints (
    id                uuid PRIMARY KEY,
    url               text NOT NULL CHECK (char_length(url) BETWEEN 10 AND 2048),
    -- NULL: every app's events and those outside any app; otherwise only these apps' events.
    apps              text[] CHECK (apps IS NULL OR cardinality(apps) BETWEEN 1 AND 1000),
    -- NULL: every kind.
    kinds             history_kind[] CHECK (kinds IS NULL OR cardinality(kinds) >= 1),
    secret            bytea NOT NULL CHECK (octet_length(secret) BETWEEN 24 AND 64),
    created_at        timestamptz NOT NULL,
    created_by        uuid,
    delivered_through bigint NOT NULL CHECK (delivered_through >= 0),
    generation        bigint NOT NULL DEFAULT 0,
    -- While the event after the cursor fails: since when, how many attempts, when the next is due.
    failing_since     timestamptz,
    failed_attempts   integer NOT NULL DEFAULT 0 CHECK (failed_attempts >= 0),
    next_attempt_at   timestamptz,
    disabled_at       timestamptz,
    disabled_reason   text CHECK (char_length(disabled_reason) <= 1000),
    lease_holder      uuid,
    lease_until       timestamptz,
    CHECK ((disabled_at IS NULL) = (disabled_reason IS NULL))
);

-- Every attempt to deliver an event: delivered (2xx), failed (another status, no answer, too slow), or refused
-- before connecting (the address is not one a webhook may reach). The newest 10,000 per endpoint are kept.
CREATE TABLE webhook_attempts (
    endpoint_id uuid NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
    id          bigint GENERATED ALWAYS AS IDENTITY,
    sequence    bigint NOT NULL,
    attempt     integer NOT NULL CHECK (attempt >= 1),
    at          timestamptz NOT NULL,
    duration_ms integer NOT NULL CHECK (duration_ms >= 0),
    status      integer CHECK (status BETWEEN 100 AND 999),
    outcome     text NOT NULL CHECK (outcome IN ('delivered', 'failed', 'refused')),
    error       text CHECK (char_length(error) <= 1000),
    PRIMARY KEY (endpoint_id, id)
);

DO $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'iap_service') THEN
        RETURN;
    END IF;
    GRANT SELECT, INSERT, UPDATE, DELETE ON webhook_endpoints, webhook_attempts TO iap_service;
END
$$;
