-- A payment is kept as a JSON document plus the columns that are queried:
-- the document carries the many optional fields of the contract, the
-- columns carry scope, uniqueness, list order and lookups.
CREATE TABLE payments (
    id                  TEXT PRIMARY KEY,
    shop_id             TEXT NOT NULL REFERENCES shops (id),
    test                BOOLEAN NOT NULL,
    status              TEXT NOT NULL,
    order_id            TEXT NOT NULL,
    amount              BIGINT NOT NULL,
    currency            TEXT NOT NULL,
    created_at          BIGINT NOT NULL,
    checkout_token_hash BYTEA,
    provider            TEXT NOT NULL DEFAULT '',
    provider_payment_id TEXT NOT NULL DEFAULT '',
    doc                 TEXT NOT NULL
);
CREATE UNIQUE INDEX payments_order ON payments (shop_id, test, order_id);
CREATE INDEX payments_list ON payments (shop_id, test, created_at DESC, id DESC);
CREATE INDEX payments_status ON payments (shop_id, test, status, created_at DESC, id DESC);
CREATE UNIQUE INDEX payments_checkout ON payments (checkout_token_hash);
CREATE INDEX payments_provider ON payments (provider, provider_payment_id);

CREATE TABLE provider_notifications (
    provider        TEXT NOT NULL,
    notification_id TEXT NOT NULL,
    received_at     BIGINT NOT NULL,
    PRIMARY KEY (provider, notification_id)
);

CREATE TABLE discrepancies (
    id         TEXT PRIMARY KEY,
    payment_id TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    doc        TEXT NOT NULL
);
CREATE INDEX discrepancies_list ON discrepancies (created_at DESC, id DESC);

CREATE TABLE sandbox_attempts (
    id         TEXT PRIMARY KEY,
    provider   TEXT NOT NULL,
    reference  TEXT NOT NULL,
    payment_id TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    doc        TEXT NOT NULL
);
CREATE INDEX sandbox_attempts_reference ON sandbox_attempts (provider, reference);

-- Service-wide secrets (sandbox notification signing, form protection),
-- created once and shared by every instance.
CREATE TABLE service_secrets (
    name  TEXT PRIMARY KEY,
    value BYTEA NOT NULL
);
