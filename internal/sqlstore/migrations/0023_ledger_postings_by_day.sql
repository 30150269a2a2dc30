-- A register reads the entries of one day of one merchant's contour and
-- currency (LedgerEntriesOf). With only ledger_postings_owner (owner, test,
-- currency, bucket) that read walked every posting the contour ever had
-- and kept those of the day: at a million payments, minutes for each day
-- of the settlement run's two weeks, under the merchant's lock (and on
-- SQLite the one writer). In time order the day is one range of this
-- index, however long the history. IF NOT EXISTS: on a large PostgreSQL
-- ledger an operator may build it beforehand without blocking postings
-- (CREATE INDEX CONCURRENTLY; docs/operations.md).
CREATE INDEX IF NOT EXISTS ledger_postings_owner_at ON ledger_postings (owner, test, currency, at);
