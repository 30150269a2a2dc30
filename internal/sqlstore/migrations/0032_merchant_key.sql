-- Every row that belongs to a merchant carries the merchant's key
-- (payd.MerchantKey): 20 bits that the identifiers of the merchant's
-- objects carry too. On a Citus cluster it is the column the merchant's
-- tables are distributed by, so that all of one merchant's rows sit in one
-- co-located shard group and a statement names its shard by the key of
-- any identifier it has (docs/operations.md, "Past one PostgreSQL"). On a
-- single server it is carried and not read.
--
-- Rows written before carry 0: the step that distributes the tables
-- (citus.go) derives their keys from their merchants first. Adding a
-- column with a constant default rewrites no table in either database.
ALTER TABLE merchants ADD COLUMN merchant_key INTEGER NOT NULL DEFAULT 0;
ALTER TABLE shops ADD COLUMN merchant_key INTEGER NOT NULL DEFAULT 0;
ALTER TABLE api_keys ADD COLUMN merchant_key INTEGER NOT NULL DEFAULT 0;
ALTER TABLE idempotency_keys ADD COLUMN merchant_key INTEGER NOT NULL DEFAULT 0;
ALTER TABLE events ADD COLUMN merchant_key INTEGER NOT NULL DEFAULT 0;
ALTER TABLE webhook_endpoints ADD COLUMN merchant_key INTEGER NOT NULL DEFAULT 0;
ALTER TABLE payments ADD COLUMN merchant_key INTEGER NOT NULL DEFAULT 0;
ALTER TABLE provider_notifications ADD COLUMN merchant_key INTEGER NOT NULL DEFAULT 0;
ALTER TABLE discrepancies ADD COLUMN merchant_key INTEGER NOT NULL DEFAULT 0;
ALTER TABLE sandbox_attempts ADD COLUMN merchant_key INTEGER NOT NULL DEFAULT 0;
ALTER TABLE webhook_deliveries ADD COLUMN merchant_key INTEGER NOT NULL DEFAULT 0;
ALTER TABLE delivery_attempts ADD COLUMN merchant_key INTEGER NOT NULL DEFAULT 0;
ALTER TABLE ledger_entries ADD COLUMN merchant_key INTEGER NOT NULL DEFAULT 0;
ALTER TABLE ledger_postings ADD COLUMN merchant_key INTEGER NOT NULL DEFAULT 0;
ALTER TABLE ledger_totals ADD COLUMN merchant_key INTEGER NOT NULL DEFAULT 0;
ALTER TABLE ledger_totals_opened ADD COLUMN merchant_key INTEGER NOT NULL DEFAULT 0;
ALTER TABLE refunds ADD COLUMN merchant_key INTEGER NOT NULL DEFAULT 0;
ALTER TABLE payout_freezes ADD COLUMN merchant_key INTEGER NOT NULL DEFAULT 0;
ALTER TABLE settlements ADD COLUMN merchant_key INTEGER NOT NULL DEFAULT 0;
ALTER TABLE settlement_days ADD COLUMN merchant_key INTEGER NOT NULL DEFAULT 0;
ALTER TABLE disputes ADD COLUMN merchant_key INTEGER NOT NULL DEFAULT 0;
ALTER TABLE evidence_files ADD COLUMN merchant_key INTEGER NOT NULL DEFAULT 0;
ALTER TABLE evidence_chunks ADD COLUMN merchant_key INTEGER NOT NULL DEFAULT 0;
ALTER TABLE payment_links ADD COLUMN merchant_key INTEGER NOT NULL DEFAULT 0;
ALTER TABLE link_payments ADD COLUMN merchant_key INTEGER NOT NULL DEFAULT 0;
ALTER TABLE payouts ADD COLUMN merchant_key INTEGER NOT NULL DEFAULT 0;
ALTER TABLE audit_log ADD COLUMN merchant_key INTEGER NOT NULL DEFAULT 0;
