-- On AWS each stream's pipeline is a set of Kafka event source mappings created by stream-api; their ids are kept
-- here because listing mappings by function would need IAM on every resource. The all-in-one server leaves it empty.
CREATE TABLE ingest_mappings (
    stream_id    VARCHAR(36) PRIMARY KEY REFERENCES streams (id) ON DELETE CASCADE,
    mapping_ids  TEXT        NOT NULL
);
