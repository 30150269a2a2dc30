-- The operator's staff, their API tokens and the operator audit log
-- (docs/operator.md, "Staff and roles"). Service-wide tables: on a
-- cluster they are reference tables (citus.go), read wherever a request
-- lands. Secrets are kept as the dashboard users' are: the password as an
-- argon2id PHC string, setup and API tokens as their SHA-256 only, the
-- TOTP secret sealed.
CREATE TABLE staff (
    id               TEXT PRIMARY KEY,
    email            TEXT NOT NULL,
    role             TEXT NOT NULL,
    created_at       BIGINT NOT NULL,
    disabled_at      BIGINT,
    password_hash    TEXT NOT NULL DEFAULT '',
    totp_secret      TEXT NOT NULL DEFAULT '',
    totp_pending     TEXT NOT NULL DEFAULT '',
    totp_last_step   BIGINT NOT NULL DEFAULT 0,
    setup_hash       BYTEA,
    setup_expires_at BIGINT
);
CREATE UNIQUE INDEX staff_email ON staff (email);
CREATE UNIQUE INDEX staff_setup ON staff (setup_hash);

CREATE TABLE staff_tokens (
    id           TEXT PRIMARY KEY,
    staff_id     TEXT NOT NULL REFERENCES staff (id),
    name         TEXT NOT NULL,
    token_hash   BYTEA NOT NULL UNIQUE,
    created_at   BIGINT NOT NULL,
    last_used_at BIGINT,
    revoked_at   BIGINT
);
CREATE INDEX staff_tokens_staff ON staff_tokens (staff_id, created_at, id);

-- Append-only: the store has no statement that changes or deletes a row.
CREATE TABLE operator_audit (
    id                 TEXT PRIMARY KEY,
    created_at         BIGINT NOT NULL,
    staff_id           TEXT NOT NULL DEFAULT '',
    staff_email        TEXT NOT NULL DEFAULT '',
    via                TEXT NOT NULL,
    token_id           TEXT NOT NULL DEFAULT '',
    addr               TEXT NOT NULL DEFAULT '',
    action             TEXT NOT NULL,
    object_id          TEXT NOT NULL DEFAULT '',
    merchant_id        TEXT NOT NULL DEFAULT '',
    before_json        TEXT NOT NULL DEFAULT '',
    after_json         TEXT NOT NULL DEFAULT '',
    detail             TEXT NOT NULL DEFAULT '',
    confirmed_by_id    TEXT NOT NULL DEFAULT '',
    confirmed_by_email TEXT NOT NULL DEFAULT ''
);
-- The log's pages walk (created_at, id) newest first, alone or after one
-- equality filter.
CREATE INDEX operator_audit_created ON operator_audit (created_at, id);
CREATE INDEX operator_audit_staff ON operator_audit (staff_id, created_at, id);
CREATE INDEX operator_audit_object ON operator_audit (object_id, created_at, id);
CREATE INDEX operator_audit_merchant ON operator_audit (merchant_id, created_at, id);
