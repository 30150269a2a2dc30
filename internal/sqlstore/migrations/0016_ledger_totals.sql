-- Running totals of the ledger, so that a balance read costs the same
-- however many postings an account has (docs/money.md, "Running totals").
-- Postings stay the truth; these rows are derived from them, written in
-- the transaction of each posting and verified by the ledger check.
--
-- kind 'account' totals one account (owner, contour, currency, bucket and
-- sub-key: what LedgerAccountBalance reads); kind 'bucket' totals a whole
-- bucket of a contour and currency, all its sub-accounts together (sub is
-- ''; what the Balance object reads). A total is the sum of its slots. A
-- posting adds to a slot no other transaction holds, or opens a slot of
-- its own named after its entry, so that no transaction waits for another
-- to add to a busy total (the service's clearing account, a merchant's
-- pending bucket under concurrent captures). A slot is never moved from
-- one total to another; spare slots are folded back into one by the next
-- posting that finds them free.
CREATE TABLE ledger_totals (
    kind     TEXT NOT NULL,
    owner    TEXT NOT NULL,
    test     BOOLEAN NOT NULL,
    currency TEXT NOT NULL,
    bucket   TEXT NOT NULL,
    sub      TEXT NOT NULL,
    slot     TEXT NOT NULL,
    amount   BIGINT NOT NULL,
    PRIMARY KEY (kind, owner, test, currency, bucket, sub, slot)
);
-- The totals of what was posted before, each in one slot named ''. An
-- older payd does not write totals: no older instance may post once this
-- has run (docs/operations.md, "Upgrading to the ledger's running
-- totals"); the ledger check names any total that differs from its
-- postings.
INSERT INTO ledger_totals (kind, owner, test, currency, bucket, sub, slot, amount)
    SELECT 'account', owner, test, currency, bucket, sub, '', SUM(amount)
    FROM ledger_postings GROUP BY owner, test, currency, bucket, sub;
INSERT INTO ledger_totals (kind, owner, test, currency, bucket, sub, slot, amount)
    SELECT 'bucket', owner, test, currency, bucket, '', '', SUM(amount)
    FROM ledger_postings GROUP BY owner, test, currency, bucket;
