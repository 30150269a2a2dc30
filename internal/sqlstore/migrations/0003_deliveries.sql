-- Webhook deliveries: one row per event and endpoint, and the log of every
-- attempt for operators.
CREATE TABLE webhook_deliveries (
    id          TEXT PRIMARY KEY,
    event_id    TEXT NOT NULL,
    endpoint_id TEXT NOT NULL,
    created_at  BIGINT NOT NULL,
    doc         TEXT NOT NULL
);
CREATE INDEX webhook_deliveries_event ON webhook_deliveries (event_id);

CREATE TABLE delivery_attempts (
    id          TEXT PRIMARY KEY,
    event_id    TEXT NOT NULL,
    delivery_id TEXT NOT NULL,
    at          BIGINT NOT NULL,
    doc         TEXT NOT NULL
);
CREATE INDEX delivery_attempts_event ON delivery_attempts (event_id, at);
