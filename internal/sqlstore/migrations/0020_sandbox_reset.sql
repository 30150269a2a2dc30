-- A sandbox reset in progress (docs/sandbox.md, "Sandbox reset"). The row
-- exists from the reset's first transaction to its last; a merchant API
-- change to the shop's test data that finds it waits for the reset to end,
-- so that it lands wholly after the reset, never among its batches.
CREATE TABLE sandbox_resets (
    shop_id    TEXT PRIMARY KEY,
    started_at BIGINT NOT NULL
);
