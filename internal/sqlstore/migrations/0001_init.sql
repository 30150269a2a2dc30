-- Times are BIGINT microseconds since the Unix epoch in UTC, the same in both
-- databases, so every comparison and the list cursors are plain integer
-- comparisons. JSON documents are TEXT: event bodies must be kept byte for
-- byte, which jsonb would not do.

CREATE TABLE merchants (
    id                    TEXT PRIMARY KEY,
    name                  TEXT NOT NULL,
    legal_name            TEXT NOT NULL DEFAULT '',
    tax_id                TEXT NOT NULL DEFAULT '',
    settlement_delay_days INTEGER NOT NULL DEFAULT 1,
    created_at            BIGINT NOT NULL
);
CREATE INDEX merchants_list ON merchants (created_at DESC, id DESC);

CREATE TABLE shops (
    id                 TEXT PRIMARY KEY,
    merchant_id        TEXT NOT NULL REFERENCES merchants (id),
    region             TEXT NOT NULL,
    name               TEXT NOT NULL,
    default_currency   TEXT NOT NULL,
    activated_at       BIGINT,
    blocked            BOOLEAN NOT NULL DEFAULT FALSE,
    payments_suspended BOOLEAN NOT NULL DEFAULT FALSE,
    settings           TEXT NOT NULL DEFAULT '{}',
    created_at         BIGINT NOT NULL
);
CREATE INDEX shops_list ON shops (created_at DESC, id DESC);
CREATE INDEX shops_merchant ON shops (merchant_id, created_at DESC, id DESC);

CREATE TABLE api_keys (
    id          TEXT PRIMARY KEY,
    shop_id     TEXT NOT NULL REFERENCES shops (id),
    mode        TEXT NOT NULL,
    hint        TEXT NOT NULL,
    secret_hash BYTEA NOT NULL,
    created_at  BIGINT NOT NULL,
    expires_at  BIGINT,
    revoked_at  BIGINT
);
CREATE INDEX api_keys_shop ON api_keys (shop_id, mode);

CREATE TABLE idempotency_keys (
    shop_id      TEXT NOT NULL,
    mode         TEXT NOT NULL,
    idem_key     TEXT NOT NULL,
    request_hash BYTEA NOT NULL,
    status       INTEGER NOT NULL,
    body         BYTEA,
    created_at   BIGINT NOT NULL,
    expires_at   BIGINT NOT NULL,
    PRIMARY KEY (shop_id, mode, idem_key)
);
CREATE INDEX idempotency_keys_expiry ON idempotency_keys (expires_at);

CREATE TABLE events (
    id                 TEXT PRIMARY KEY,
    shop_id            TEXT NOT NULL,
    merchant_id        TEXT NOT NULL,
    test               BOOLEAN NOT NULL,
    type               TEXT NOT NULL,
    object_id          TEXT NOT NULL,
    created_at         BIGINT NOT NULL,
    body               TEXT NOT NULL,
    delivery_status    TEXT NOT NULL,
    delivery_attempts  INTEGER NOT NULL DEFAULT 0,
    last_response_code INTEGER,
    last_attempt_at    BIGINT
);
CREATE INDEX events_list ON events (shop_id, test, created_at DESC, id DESC);
CREATE INDEX events_object ON events (shop_id, test, object_id, created_at DESC, id DESC);
CREATE INDEX events_retention ON events (created_at);

CREATE TABLE webhook_endpoints (
    id                   TEXT PRIMARY KEY,
    shop_id              TEXT NOT NULL REFERENCES shops (id),
    test                 BOOLEAN NOT NULL,
    url                  TEXT NOT NULL,
    events               TEXT NOT NULL,
    status               TEXT NOT NULL,
    description          TEXT NOT NULL DEFAULT '',
    secret               TEXT NOT NULL,
    prev_secret          TEXT NOT NULL DEFAULT '',
    prev_secret_until    BIGINT,
    consecutive_failures INTEGER NOT NULL DEFAULT 0,
    created_at           BIGINT NOT NULL,
    deleted_at           BIGINT
);
CREATE INDEX webhook_endpoints_shop ON webhook_endpoints (shop_id, test, created_at DESC);
