-- Stage M5: payment links. A link is kept as a JSON document with the
-- columns its list and its expiry sweep look it up by; links without an
-- expiry keep NULL in expires_at, which the sweep never selects.
CREATE TABLE payment_links (
    id         TEXT PRIMARY KEY,
    shop_id    TEXT NOT NULL,
    test       BOOLEAN NOT NULL,
    status     TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    expires_at BIGINT,
    doc        TEXT NOT NULL
);
CREATE INDEX payment_links_list ON payment_links (shop_id, test, created_at DESC, id DESC);
CREATE INDEX payment_links_expiry ON payment_links (status, expires_at, id);

-- The payments made through each link, numbered from 1 in the order they
-- were created: the number is the suffix of their order ids, and a
-- reusable link's list grows without rewriting its document.
CREATE TABLE link_payments (
    link_id    TEXT NOT NULL,
    seq        INTEGER NOT NULL,
    payment_id TEXT NOT NULL UNIQUE,
    created_at BIGINT NOT NULL,
    PRIMARY KEY (link_id, seq)
);
