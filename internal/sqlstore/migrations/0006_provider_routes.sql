-- Live payments' routing, kept by operators: for a region, method and
-- currency, the providers in cascade order. Test payments always go to the
-- sandbox banks and have no rows here. providers is a JSON array of names,
-- so a row is replaced whole and its order cannot be half-updated.
CREATE TABLE provider_routes (
    region     TEXT NOT NULL,
    method     TEXT NOT NULL,
    currency   TEXT NOT NULL,
    providers  TEXT NOT NULL,
    updated_at BIGINT NOT NULL,
    PRIMARY KEY (region, method, currency)
);
