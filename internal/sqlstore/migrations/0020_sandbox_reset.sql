-- A sandbox reset in progress (docs/sandbox.md, "Sandbox reset"): set on
-- the shop's row from the reset's first transaction to its last. A
-- merchant API change to the shop's test data reads it under a share lock
-- of the same row and waits while it is set, so that it lands wholly
-- before the reset (the reset's first transaction waits for it) or wholly
-- after, never among its batches. On the row itself, not a table beside
-- it, because PostgreSQL re-reads a row it waited to lock: a writer that
-- waited for the reset's first transaction sees the mark at once.
ALTER TABLE shops ADD COLUMN sandbox_reset_at BIGINT;
-- The reset deletes a batch of payments' bank attempts by payment.
CREATE INDEX sandbox_attempts_payment ON sandbox_attempts (payment_id);
