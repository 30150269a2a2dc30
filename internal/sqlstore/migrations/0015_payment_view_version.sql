-- A payment's stored rendering (view, 0013) carries the version of the
-- code that rendered it (payd.PaymentViewVersion). A list sends a stored
-- rendering only when its version is the running one, and renders the
-- document afresh otherwise, so the day a compatible field is added a list
-- and a GET never disagree; a background pass (payment_views_refresh)
-- renders the stale rows again. Renderings kept before were made by
-- version 1; rows without one (before 0013) are version 0.
ALTER TABLE payments ADD COLUMN view_version INTEGER NOT NULL DEFAULT 1;
UPDATE payments SET view_version = 0 WHERE view IS NULL;
-- Only stale rows are in this index, so new writes cost it nothing and the
-- pass finds what is left without reading the table. Raising
-- payd.PaymentViewVersion comes with a migration that replaces this index
-- with the new bound (sqlstore.paymentViewStaleBound checks it).
CREATE INDEX payments_view_stale ON payments (id) WHERE view_version < 1;
