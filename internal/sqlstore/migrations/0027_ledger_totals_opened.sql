-- The owner-level totals (sub '') that postings opened a slot of since the
-- last fold, one row per slot opened: a posting opens a slot only when
-- every slot of the total is held by another transaction (or the total
-- has none yet), so only these totals can have spare slots. The hourly
-- fold (LedgerTotalsFold) reads them instead of grouping every owner-level
-- total of every merchant, and deletes them once folded. The slot's name
-- is the opening entry's id, so no two transactions write the same row.
CREATE TABLE ledger_totals_opened (
    kind     TEXT NOT NULL,
    owner    TEXT NOT NULL,
    test     BOOLEAN NOT NULL,
    currency TEXT NOT NULL,
    bucket   TEXT NOT NULL,
    slot     TEXT NOT NULL,
    PRIMARY KEY (kind, owner, test, currency, bucket, slot)
);
-- The spare slots there are at the upgrade: every slot of the totals that
-- have more than one.
INSERT INTO ledger_totals_opened (kind, owner, test, currency, bucket, slot)
    SELECT l.kind, l.owner, l.test, l.currency, l.bucket, l.slot FROM ledger_totals l
    WHERE l.sub = '' AND EXISTS (SELECT 1 FROM ledger_totals m WHERE m.kind = l.kind AND m.owner = l.owner
        AND m.test = l.test AND m.currency = l.currency AND m.bucket = l.bucket AND m.sub = '' AND m.slot <> l.slot);
