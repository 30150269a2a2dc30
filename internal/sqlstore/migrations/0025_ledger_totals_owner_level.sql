-- The totals of an owner's whole accounts and buckets (sub ''): every
-- bucket total, and the accounts a merchant or the service has one of
-- (available, the deposit, the service's clearing and fees). They are the
-- few totals balance reads sum and concurrent postings share, so the ones
-- that gain spare slots (docs/money.md, "Slots"). The primary key also
-- holds a total for every payment's, refund's and dispute's own
-- sub-accounts, about one row a payment, so a balance read descending it
-- and the fold looking for spare slots in it would cost more with every
-- payment ever taken; this index holds the owner-level totals alone, a
-- few dozen rows a merchant however long its history. A query reaches it
-- by naming `sub = ''` itself. IF NOT EXISTS: on a large PostgreSQL ledger
-- an operator may build it beforehand without blocking postings (CREATE
-- INDEX CONCURRENTLY; docs/operations.md).
CREATE INDEX IF NOT EXISTS ledger_totals_owner_level
    ON ledger_totals (kind, owner, test, currency, bucket, slot) WHERE sub = '';
