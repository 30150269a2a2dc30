-- A test event's place in its shop's sandbox feed (GET /test/events,
-- docs/sandbox.md "payd listen"): a number that only grows, given at the
-- event's creation and again at each resend, so a reader that remembers
-- the last number it saw misses neither new events nor resent ones, which
-- keep their created_at. Live events are never in the feed and keep 0.
-- Events written before this migration keep 0 too: a resend gives them a
-- number like any other.
ALTER TABLE events ADD COLUMN seq BIGINT NOT NULL DEFAULT 0;
CREATE INDEX events_feed ON events (shop_id, seq) WHERE test;
-- PostgreSQL numbers the feed from one sequence (SQLite, with its single
-- writer, takes the shop's highest number plus one; dialect.go drops this
-- statement there).
CREATE SEQUENCE events_feed_seq;
