-- The days that moved a merchant's money and have no register yet: the
-- posting that first moves money on such a day records it, and the
-- register's transaction removes it. The hourly settlement run reads these
-- rows instead of asking every merchant, contour, currency and day of two
-- weeks whether it has a register (docs/operations.md, "Background
-- work"). day is YYYY-MM-DD in the calendar of the currency's region.
-- Filled from the ledger's last sixteen days as the migration runs
-- (backfillSettlementDays), so no day due before the upgrade is lost.
CREATE TABLE settlement_days (
    merchant_id TEXT NOT NULL,
    test        BOOLEAN NOT NULL,
    currency    TEXT NOT NULL,
    day         TEXT NOT NULL,
    PRIMARY KEY (merchant_id, test, currency, day)
);
CREATE INDEX settlement_days_by_day ON settlement_days (day, merchant_id, test, currency);
