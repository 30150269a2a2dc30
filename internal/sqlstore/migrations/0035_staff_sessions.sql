-- The back office's sessions: the operator's staff sign in as dashboard
-- users do (docs/operator.md, "The back office"), into a table of their
-- own so that a session of one kind is never found as the other's. The
-- columns are dashboard_sessions', merchant_id always ''. A reference
-- table on a cluster (citus.go), as the staff are.
CREATE TABLE staff_sessions (
    id              TEXT PRIMARY KEY,
    token_hash      BYTEA NOT NULL UNIQUE,
    user_id         TEXT NOT NULL REFERENCES staff (id),
    merchant_id     TEXT NOT NULL DEFAULT '',
    state           TEXT NOT NULL,
    created_at      BIGINT NOT NULL,
    last_seen_at    BIGINT NOT NULL,
    addr            TEXT NOT NULL DEFAULT '',
    user_agent      TEXT NOT NULL DEFAULT '',
    code_failures   INTEGER NOT NULL DEFAULT 0,
    failed_sign_ins INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX staff_sessions_user ON staff_sessions (user_id);
CREATE INDEX staff_sessions_seen ON staff_sessions (last_seen_at);
CREATE INDEX staff_sessions_created ON staff_sessions (created_at);
