-- Deliveries become their own durable queue: a pending delivery is due at
-- due_at on the service clock, and a sender that claims it moves due_at
-- forward by its lease, so that a delivery whose sender died is taken again
-- when the lease runs out. One job row per delivery cost more than the
-- delivery itself (docs/benchmarks.md, webhook fan-out).
ALTER TABLE webhook_deliveries ADD COLUMN state TEXT NOT NULL DEFAULT 'pending';
ALTER TABLE webhook_deliveries ADD COLUMN due_at BIGINT NOT NULL DEFAULT 0;
-- Documents are compact JSON written by this service, so the state can be
-- read off them without a JSON function (whose spelling differs between the
-- two databases). A pending delivery is due at once: its old job may also
-- still run, which at worst sends it one more time (receivers deduplicate
-- on the event id).
UPDATE webhook_deliveries SET state = CASE
    WHEN doc LIKE '%"state":"succeeded"%' THEN 'succeeded'
    WHEN doc LIKE '%"state":"failed"%' THEN 'failed'
    WHEN doc LIKE '%"state":"skipped"%' THEN 'skipped'
    ELSE 'pending' END, due_at = created_at;
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (due_at) WHERE state = 'pending';

-- An event's delivery summary is kept as counters that each attempt's
-- batch moves, instead of being recomputed from all of the event's
-- deliveries on every attempt.
ALTER TABLE events ADD COLUMN deliveries_total INTEGER NOT NULL DEFAULT 0;
ALTER TABLE events ADD COLUMN deliveries_pending INTEGER NOT NULL DEFAULT 0;
ALTER TABLE events ADD COLUMN deliveries_failed INTEGER NOT NULL DEFAULT 0;
UPDATE events SET
    deliveries_total = (SELECT COUNT(*) FROM webhook_deliveries d WHERE d.event_id = events.id),
    deliveries_pending = (SELECT COUNT(*) FROM webhook_deliveries d WHERE d.event_id = events.id AND d.state = 'pending'),
    deliveries_failed = (SELECT COUNT(*) FROM webhook_deliveries d WHERE d.event_id = events.id AND d.state IN ('failed', 'skipped'))
    WHERE EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = events.id);
