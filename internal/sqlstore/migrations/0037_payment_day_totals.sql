-- A shop's payments of each UTC day by contour, status and currency: how
-- many and their sum, kept by every creation and every change of status in
-- its own transaction (payment_total.go). The dashboard's home page and the
-- shop's daily and monthly limits read a day or a month of these rows
-- instead of every payment created in it, so their cost stays the same
-- however busy the day was.
--
-- A total is kept in slots, as the ledger's are: on PostgreSQL each
-- server process (pg_backend_pid()) adds to a slot of its own, so that
-- transactions creating payments of one shop at once never wait for one
-- another's row; on SQLite, with its one writer, the slot is 0. A slot's
-- count may go below zero (a payment created through one slot changes
-- status through another): only the sum over the slots means anything.
-- day is the number of days from 1970-01-01 to created_at's UTC day.
CREATE TABLE payment_day_totals (
    shop_id      TEXT NOT NULL,
    test         BOOLEAN NOT NULL,
    day          INTEGER NOT NULL,
    status       TEXT NOT NULL,
    currency     TEXT NOT NULL,
    slot         BIGINT NOT NULL,
    count        BIGINT NOT NULL,
    amount       BIGINT NOT NULL,
    merchant_key INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (shop_id, test, day, status, currency, slot)
);
-- The payments there are at the upgrade, in slot 0.
INSERT INTO payment_day_totals (shop_id, test, day, status, currency, slot, count, amount, merchant_key)
    SELECT shop_id, test, created_at / 86400000000, status, currency, 0, COUNT(*), SUM(amount), MIN(merchant_key)
    FROM payments GROUP BY shop_id, test, created_at / 86400000000, status, currency;
