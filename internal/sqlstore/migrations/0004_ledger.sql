-- The ledger: immutable entries and their postings. Balances are sums of
-- postings; nothing here is ever updated.
CREATE TABLE ledger_entries (
    id       TEXT PRIMARY KEY,
    at       BIGINT NOT NULL,
    kind     TEXT NOT NULL,
    ref_type TEXT NOT NULL,
    ref_id   TEXT NOT NULL
);
CREATE INDEX ledger_entries_ref ON ledger_entries (ref_type, ref_id);

CREATE TABLE ledger_postings (
    entry_id    TEXT NOT NULL REFERENCES ledger_entries (id),
    seq         INTEGER NOT NULL,
    account_key TEXT NOT NULL,
    owner       TEXT NOT NULL,
    test        BOOLEAN NOT NULL,
    currency    TEXT NOT NULL,
    bucket      TEXT NOT NULL,
    sub         TEXT NOT NULL,
    amount      BIGINT NOT NULL,
    at          BIGINT NOT NULL,
    PRIMARY KEY (entry_id, seq)
);
CREATE INDEX ledger_postings_owner ON ledger_postings (owner, test, currency, bucket);
CREATE INDEX ledger_postings_account ON ledger_postings (account_key);

CREATE TABLE refunds (
    id         TEXT PRIMARY KEY,
    shop_id    TEXT NOT NULL,
    test       BOOLEAN NOT NULL,
    payment_id TEXT NOT NULL,
    status     TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    doc        TEXT NOT NULL
);
CREATE INDEX refunds_list ON refunds (shop_id, test, created_at DESC, id DESC);
CREATE INDEX refunds_payment ON refunds (payment_id);

-- The payout freeze of a merchant in one contour (SettlementStatus): the
-- test contour has its own, so the sandbox can show a freeze without
-- touching live payouts.
CREATE TABLE payout_freezes (
    merchant_id TEXT NOT NULL,
    test        BOOLEAN NOT NULL,
    frozen      BOOLEAN NOT NULL,
    reason      TEXT NOT NULL DEFAULT '',
    frozen_at   BIGINT,
    unfrozen_at BIGINT,
    PRIMARY KEY (merchant_id, test)
);

CREATE TABLE settlements (
    id          TEXT PRIMARY KEY,
    merchant_id TEXT NOT NULL,
    test        BOOLEAN NOT NULL,
    currency    TEXT NOT NULL,
    period_from TEXT NOT NULL,
    period_to   TEXT NOT NULL,
    status      TEXT NOT NULL,
    created_at  BIGINT NOT NULL,
    doc         TEXT NOT NULL
);
CREATE UNIQUE INDEX settlements_period ON settlements (merchant_id, test, currency, period_from);
CREATE INDEX settlements_list ON settlements (merchant_id, test, created_at DESC, id DESC);
