-- The regional calendar's holidays, kept by operators; weekends are not
-- business days either. Registers are formed on business days only.
CREATE TABLE holidays (
    region TEXT NOT NULL,
    day    TEXT NOT NULL,
    PRIMARY KEY (region, day)
);

-- The automatic path of registers: formed, approved, sent and paid
-- without operator actions.
ALTER TABLE merchants ADD COLUMN auto_settle BOOLEAN NOT NULL DEFAULT FALSE;
