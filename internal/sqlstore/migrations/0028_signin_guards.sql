-- The failed sign-ins of each account name (the SHA-256 of a normalized
-- email, known or not), which lock it for growing waits (payd.SignInGuard).
-- Times are microseconds since the epoch; 0 is none.
CREATE TABLE signin_guards (
    key               TEXT PRIMARY KEY,
    failures          INTEGER NOT NULL DEFAULT 0,
    window_start      BIGINT NOT NULL DEFAULT 0,
    locked_until      BIGINT NOT NULL DEFAULT 0,
    lockouts          INTEGER NOT NULL DEFAULT 0,
    since_sign_in     INTEGER NOT NULL DEFAULT 0,
    last_failure_at   BIGINT NOT NULL DEFAULT 0,
    last_failure_addr TEXT NOT NULL DEFAULT '',
    updated_at        BIGINT NOT NULL DEFAULT 0
);
CREATE INDEX signin_guards_updated ON signin_guards (updated_at);
-- A session awaiting the second factor counts its wrong codes; a session
-- that completed a sign-in keeps how many failures came before it, for
-- the notice its pages show.
ALTER TABLE dashboard_sessions ADD COLUMN code_failures INTEGER NOT NULL DEFAULT 0;
ALTER TABLE dashboard_sessions ADD COLUMN failed_sign_ins INTEGER NOT NULL DEFAULT 0;
