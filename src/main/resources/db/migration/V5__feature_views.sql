-- Feature views (SPEC "Feature views"): the definition of each, as the request gave it (definition: JSON text),
-- with the source it reads and its offline Delta table. Where materialization stands (source version, watermark,
-- counters) lives next to its tiles in the online database (tributary_online._feature_state), so tiles and version
-- commit together. source_stream_id: the stream whose ingestion table is the source (NULL for a registered table).
CREATE TABLE feature_views (
    full_name         VARCHAR(767) PRIMARY KEY,
    id                VARCHAR(36)  NOT NULL UNIQUE,
    source_table_name VARCHAR(767) NOT NULL,
    source_location   TEXT         NOT NULL,
    source_stream_id  VARCHAR(36),
    offline_location  TEXT         NOT NULL,
    online_tables     VARCHAR(40)  NOT NULL UNIQUE,
    definition        TEXT         NOT NULL,
    owner             VARCHAR(255) NOT NULL,
    created_at        TIMESTAMPTZ  NOT NULL
);
CREATE INDEX feature_views_source ON feature_views (source_location);
