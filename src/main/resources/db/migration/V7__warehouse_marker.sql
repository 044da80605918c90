-- The warehouse the servers of this registry share (README "Running several servers"): the marker written in a file
-- at the warehouse's root by the first server. A server whose TRIBUTARY_WAREHOUSE holds no such file, or another
-- one, sees other storage than the servers before it (a local path on another machine) and stops at start-up.
CREATE TABLE warehouse_marker (
    singleton BOOLEAN PRIMARY KEY DEFAULT TRUE CHECK (singleton),
    marker TEXT NOT NULL,
    warehouse TEXT NOT NULL,
    created_at TIMESTAMPTZ NOT NULL DEFAULT now()
);
