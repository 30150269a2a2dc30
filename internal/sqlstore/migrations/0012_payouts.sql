-- Stage M5: payouts. A payout is kept as a JSON document with the columns
-- its lists and the invariant check look it up by. Its destination is not
-- here, nor anywhere: only the masked form inside doc.
CREATE TABLE payouts (
    id          TEXT PRIMARY KEY,
    shop_id     TEXT NOT NULL,
    merchant_id TEXT NOT NULL,
    test        BOOLEAN NOT NULL,
    status      TEXT NOT NULL,
    order_id    TEXT NOT NULL,
    created_at  BIGINT NOT NULL,
    doc         TEXT NOT NULL
);
CREATE INDEX payouts_list ON payouts (shop_id, test, created_at DESC, id DESC);
CREATE INDEX payouts_merchant ON payouts (merchant_id, test, status);
