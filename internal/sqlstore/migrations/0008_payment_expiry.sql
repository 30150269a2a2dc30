-- Pending payments are expired by a periodic sweep over this index instead
-- of one job per payment, which cost every creation a job row. Payments
-- created before this migration keep NULL here: each already has its
-- expiry job, and the sweep does not see them.
ALTER TABLE payments ADD COLUMN expires_at BIGINT;
CREATE INDEX payments_expiry ON payments (status, expires_at, id);
