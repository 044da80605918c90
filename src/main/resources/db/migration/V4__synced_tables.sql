-- Synced tables (SPEC "Synced tables"): the definition of each; where each stands (version, counters, state) lives
-- next to its rows in the online database (tributary_online._sync_state), so rows and version commit together.
-- source_stream_id: the stream whose ingestion table is the source (NULL for a registered Delta table), so a
-- deleted stream (or one created again under the same name) stops its synced tables.
CREATE TABLE synced_tables (
    full_name            VARCHAR(767) PRIMARY KEY,
    id                   VARCHAR(36)  NOT NULL UNIQUE,
    source_table_name    VARCHAR(767) NOT NULL,
    source_location      TEXT         NOT NULL,
    source_stream_id     VARCHAR(36),
    primary_key_columns  TEXT         NOT NULL,
    timeseries_key       TEXT,
    scheduling_policy    VARCHAR(16)  NOT NULL,
    pg_table             VARCHAR(63)  NOT NULL UNIQUE,
    owner                VARCHAR(255) NOT NULL,
    created_at           TIMESTAMPTZ  NOT NULL
);
CREATE INDEX synced_tables_source ON synced_tables (source_location);
CREATE INDEX synced_tables_catalog ON synced_tables (source_table_name);
