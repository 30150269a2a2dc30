-- Dashboard users, their sessions and the audit log (docs/dashboard.md,
-- "Users, roles and sessions"). Secrets are stored as the service needs
-- them: passwords as argon2id PHC strings, setup and session tokens as
-- their SHA-256 only; the TOTP secret as it is, since verifying a code
-- needs it.
CREATE TABLE dashboard_users (
    id               TEXT PRIMARY KEY,
    merchant_id      TEXT NOT NULL REFERENCES merchants (id),
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
-- One account per email across all merchants: sign-in asks for the
-- email alone.
CREATE UNIQUE INDEX dashboard_users_email ON dashboard_users (email);
CREATE INDEX dashboard_users_merchant ON dashboard_users (merchant_id, created_at, id);
CREATE UNIQUE INDEX dashboard_users_setup ON dashboard_users (setup_hash);

CREATE TABLE dashboard_sessions (
    id           TEXT PRIMARY KEY,
    token_hash   BYTEA NOT NULL UNIQUE,
    user_id      TEXT NOT NULL REFERENCES dashboard_users (id),
    merchant_id  TEXT NOT NULL,
    state        TEXT NOT NULL,
    created_at   BIGINT NOT NULL,
    last_seen_at BIGINT NOT NULL,
    addr         TEXT NOT NULL DEFAULT '',
    user_agent   TEXT NOT NULL DEFAULT ''
);
CREATE INDEX dashboard_sessions_user ON dashboard_sessions (user_id);
CREATE INDEX dashboard_sessions_seen ON dashboard_sessions (last_seen_at);
CREATE INDEX dashboard_sessions_created ON dashboard_sessions (created_at);

-- Append-only: the store has no statement that changes or deletes a row.
CREATE TABLE audit_log (
    id          TEXT PRIMARY KEY,
    merchant_id TEXT NOT NULL,
    shop_id     TEXT NOT NULL DEFAULT '',
    mode        TEXT NOT NULL DEFAULT '',
    user_id     TEXT NOT NULL DEFAULT '',
    user_email  TEXT NOT NULL DEFAULT '',
    action      TEXT NOT NULL,
    object_id   TEXT NOT NULL DEFAULT '',
    addr        TEXT NOT NULL DEFAULT '',
    created_at  BIGINT NOT NULL
);
CREATE INDEX audit_log_merchant ON audit_log (merchant_id, created_at DESC, id DESC);

ALTER TABLE merchants ADD COLUMN require_second_factor BOOLEAN NOT NULL DEFAULT FALSE;
