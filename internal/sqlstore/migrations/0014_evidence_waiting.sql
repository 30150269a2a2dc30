-- Evidence files that wait to be attached to their dispute are bounded per
-- dispute and per shop, and removed once their upload link has expired
-- unattached (docs/disputes.md, "Uploads that wait"). The columns the
-- bounds and the sweep read are kept beside the document.
--
-- Files written before carry expires_at 0 and attached false whether or
-- not they were attached: the sweep reads each against its dispute's
-- evidence before removing anything, so an attached one is marked, never
-- lost, and none of them counts against the bounds.
ALTER TABLE evidence_files ADD COLUMN shop_id TEXT NOT NULL DEFAULT '';
ALTER TABLE evidence_files ADD COLUMN test BOOLEAN NOT NULL DEFAULT FALSE;
ALTER TABLE evidence_files ADD COLUMN size_bytes BIGINT NOT NULL DEFAULT 0;
ALTER TABLE evidence_files ADD COLUMN expires_at BIGINT NOT NULL DEFAULT 0;
ALTER TABLE evidence_files ADD COLUMN attached BOOLEAN NOT NULL DEFAULT FALSE;
CREATE INDEX evidence_files_waiting ON evidence_files (shop_id, test, expires_at) WHERE NOT attached;
CREATE INDEX evidence_files_expiry ON evidence_files (expires_at, id) WHERE NOT attached;
