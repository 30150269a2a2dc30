-- The operator's two queues across merchants (docs/operator.md, "Routes"):
-- the settlement registers by state, newest first, and the disputes by
-- evidence deadline, soonest first. Each page walks one of these from its
-- cursor, so a page costs its own rows however many registers and
-- disputes the service keeps; the contour leads, since the sandbox's rows
-- would otherwise be skipped one by one on every live page. A queue of
-- one merchant's registers walks settlements_list, as the merchant's own
-- list does; a merchant's disputes by deadline have an index of their own.
-- disputes_expiry, without the contour, stays the expiry sweep's.
CREATE INDEX settlements_queue ON settlements (test, status, created_at DESC, id DESC);
CREATE INDEX settlements_recent ON settlements (test, created_at DESC, id DESC);
CREATE INDEX disputes_queue ON disputes (test, status, deadline_at, id);
CREATE INDEX disputes_merchant_queue ON disputes (merchant_id, test, status, deadline_at, id);
