-- Stage M2: disputes and chargebacks. A dispute is kept as a JSON document
-- with the columns its lists, its expiry sweep and the provider's
-- notifications look it up by.
CREATE TABLE disputes (
    id                  TEXT PRIMARY KEY,
    shop_id             TEXT NOT NULL,
    merchant_id         TEXT NOT NULL,
    test                BOOLEAN NOT NULL,
    payment_id          TEXT NOT NULL,
    kind                TEXT NOT NULL,
    status              TEXT NOT NULL,
    created_at          BIGINT NOT NULL,
    deadline_at         BIGINT NOT NULL,
    provider            TEXT NOT NULL,
    provider_dispute_id TEXT NOT NULL,
    doc                 TEXT NOT NULL
);
CREATE INDEX disputes_list ON disputes (shop_id, test, created_at DESC, id DESC);
CREATE INDEX disputes_payment ON disputes (payment_id);
CREATE INDEX disputes_expiry ON disputes (status, deadline_at, id);
CREATE INDEX disputes_merchant ON disputes (merchant_id, test, kind, created_at);
-- A provider names each of its disputes once; disputes without a provider
-- id (none so far) are left out.
CREATE UNIQUE INDEX disputes_provider ON disputes (provider, provider_dispute_id) WHERE provider_dispute_id <> '';

-- Evidence uploads: the record of each file, and its bytes in chunks of at
-- most 256 KiB, written as they stream in, so an upload never sits whole in
-- memory and every instance sees every file.
CREATE TABLE evidence_files (
    id         TEXT PRIMARY KEY,
    dispute_id TEXT NOT NULL,
    state      TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    doc        TEXT NOT NULL
);
CREATE INDEX evidence_files_dispute ON evidence_files (dispute_id);

CREATE TABLE evidence_chunks (
    file_id TEXT NOT NULL,
    seq     INTEGER NOT NULL,
    data    BYTEA NOT NULL,
    PRIMARY KEY (file_id, seq)
);

-- The chargeback-ratio freeze: an operator's threshold per merchant; zero
-- means the documented default (docs/disputes.md).
ALTER TABLE merchants ADD COLUMN chargeback_ratio_bps INTEGER NOT NULL DEFAULT 0;
ALTER TABLE merchants ADD COLUMN chargeback_window_days INTEGER NOT NULL DEFAULT 0;
ALTER TABLE merchants ADD COLUMN chargeback_min_count INTEGER NOT NULL DEFAULT 0;
