-- What every process of one registry must share, checked at each start (README "Running several servers").

-- The warehouse: the marker the first server wrote in a file at the warehouse's root. A server whose
-- TRIBUTARY_WAREHOUSE holds no such file, or another one, sees other storage than the servers before it (a local path
-- on another machine) and stops at start-up.
CREATE TABLE warehouse_marker (
    singleton BOOLEAN PRIMARY KEY DEFAULT TRUE CHECK (singleton),
    marker TEXT NOT NULL,
    warehouse TEXT NOT NULL,
    created_at TIMESTAMPTZ NOT NULL DEFAULT now()
);

-- The secrets key: a known text sealed with the first process's TRIBUTARY_SECRETS_KEY (associated data
-- "secrets-key-check"). A server whose key does not open it stops at start-up instead of failing on every stored
-- secret and writing secrets no other process can read.
CREATE TABLE secrets_key_check (
    singleton BOOLEAN PRIMARY KEY DEFAULT TRUE CHECK (singleton),
    sealed BYTEA NOT NULL,
    created_at TIMESTAMPTZ NOT NULL DEFAULT now()
);
