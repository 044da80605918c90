-- The online database (synced tables, feature views' online state): the marker the first server wrote in a table of
-- the online schema. A server whose TRIBUTARY_ONLINE_JDBC_URL or TRIBUTARY_ONLINE_SCHEMA leads elsewhere would sync
-- into, and answer lookups from, a database the other servers never see; it stops at start-up instead.
CREATE TABLE online_marker (
    singleton BOOLEAN PRIMARY KEY DEFAULT TRUE CHECK (singleton),
    marker TEXT NOT NULL,
    online TEXT NOT NULL,
    created_at TIMESTAMPTZ NOT NULL DEFAULT now()
);
