-- A list page walks an index in the cursor's order (created_at, id, newest
-- first) from the cursor, never a sort of every match. Filters of lists
-- that grow without bound (a shop's refunds and events) get an index that
-- leads with them, so a rare value is not found by walking the whole list;
-- disputes and settlements stay few and walk their list index.
-- Refunds and disputes of one payment: the former indexes on payment_id
-- alone gave no order; the new ones still serve look-ups by payment.
DROP INDEX refunds_payment;
CREATE INDEX refunds_payment ON refunds (payment_id, created_at DESC, id DESC);
CREATE INDEX refunds_status ON refunds (shop_id, test, status, created_at DESC, id DESC);
DROP INDEX disputes_payment;
CREATE INDEX disputes_payment ON disputes (payment_id, created_at DESC, id DESC);
CREATE INDEX events_type ON events (shop_id, test, type, created_at DESC, id DESC);
-- A payment's contract rendering (the GET body) is kept beside its
-- document, written with it, so a list page is read and sent as it is
-- instead of decoding and encoding a hundred documents. Payments written
-- before have none and are rendered from their document when listed.
ALTER TABLE payments ADD COLUMN view TEXT;
-- Endpoints are listed whole; ties on created_at go by id.
DROP INDEX webhook_endpoints_shop;
CREATE INDEX webhook_endpoints_shop ON webhook_endpoints (shop_id, test, created_at DESC, id DESC);
