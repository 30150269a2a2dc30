-- What an audit entry's action and object leave unsaid: the outcome a
-- simulate asked for, how far the test clock was moved and to what time.
-- Entries written before have none.
ALTER TABLE audit_log ADD COLUMN detail TEXT NOT NULL DEFAULT '';
