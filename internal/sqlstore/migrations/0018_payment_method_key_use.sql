-- The dashboard filters payments by method. A payment's method is in its
-- document; this column copies it (the method the payer used, else the
-- one the merchant restricted the payment to; NULL while the payer has
-- not chosen), written with the document by every insert and update.
ALTER TABLE payments ADD COLUMN method TEXT;
-- Rows written before: the same rule read from the document. The text is
-- PostgreSQL's; SQLite reads the same operators on a TEXT document, and its
-- dialect drops the cast (sqliteDialect.ddl).
UPDATE payments SET method = COALESCE(NULLIF(doc::jsonb -> 'payment_method' ->> 'type', ''), NULLIF(doc::jsonb ->> 'method_type', ''));
-- A method-filtered page walks this index from its cursor as an unfiltered
-- one walks payments_list. Partial: most payments are created before the
-- payer picks a method, so their insert costs this index nothing.
CREATE INDEX payments_method ON payments (shop_id, test, method, created_at DESC, id DESC) WHERE method IS NOT NULL;

-- When a key last authenticated a request, for the dashboard's keys page:
-- written at most once a minute per key and instance (payd.KeyUseEvery),
-- so a busy key does not turn every request into a write.
ALTER TABLE api_keys ADD COLUMN last_used_at BIGINT;
