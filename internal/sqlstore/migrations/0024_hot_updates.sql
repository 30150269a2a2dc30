-- Room for updates on the pages of the rows that are updated after their
-- insert without a change to an indexed column: a payment (its refunds,
-- disputes and views; a change of status is indexed) and its sandbox
-- attempt (every answer of the bank). With pages filled to the brim, an
-- updated row's new version goes to another page and every index of the
-- table gets an entry for it (a payment has one for each of its lists and
-- lookups), in indexes that on a large shop are mostly not in memory.
-- With room left on the page, PostgreSQL keeps the new version there and
-- touches no index (a heap-only tuple), and pruning frees the room again.
-- In the refund benchmark 22 % of a payment's updates and 1 % of a sandbox
-- attempt's were heap-only before, 79 % and 30 % after (docs/benchmarks.md).
-- A payment row is about 2 KB, so its pages keep 30 % free (one more
-- version of one of their four rows); an attempt's, about 600 bytes, 15 %.
-- A refund's one update changes its status, which is indexed: no room
-- would make it heap-only. The setting applies to pages written from now
-- on (a rewrite of the table, which locks it, applies it to the old
-- ones). SQLite has no such setting: its dialect drops these statements.
ALTER TABLE payments SET (fillfactor = 70);
ALTER TABLE sandbox_attempts SET (fillfactor = 85);
