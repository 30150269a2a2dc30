-- Four-eyes proposals (docs/operator.md, "Staff and roles"): a change
-- one staff member asked for, kept until a second one confirms it (in the
-- change's own transaction), one rejects it, or it expires. A
-- service-wide reference table on a cluster (citus.go).
CREATE TABLE proposals (
    id                TEXT PRIMARY KEY,
    action            TEXT NOT NULL,
    object_id         TEXT NOT NULL DEFAULT '',
    method            TEXT NOT NULL,
    path              TEXT NOT NULL,
    body              TEXT NOT NULL DEFAULT '',
    state             TEXT NOT NULL,
    proposed_by       TEXT NOT NULL DEFAULT '',
    proposed_by_email TEXT NOT NULL DEFAULT '',
    created_at        BIGINT NOT NULL,
    expires_at        BIGINT NOT NULL,
    decided_by        TEXT NOT NULL DEFAULT '',
    decided_by_email  TEXT NOT NULL DEFAULT '',
    decided_at        BIGINT
);
CREATE INDEX proposals_state ON proposals (state, created_at, id);
