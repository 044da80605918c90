-- A subscribe_pattern stream's mappings change after create: the backfill function adds one for each topic that
-- starts to match and removes those of deleted topics, so each mapping is a row with the topic it reads. topic is
-- NULL only for mappings recorded before this migration, all of fixed-topic streams, which are never re-resolved.
-- stopping is set by a delete before it removes the mappings; the backfill function then leaves the stream alone.
CREATE TABLE ingest_mapping_topics (
    mapping_id  VARCHAR(64) PRIMARY KEY,
    stream_id   VARCHAR(36) NOT NULL REFERENCES ingest_mappings (stream_id) ON DELETE CASCADE,
    topic       TEXT
);
CREATE INDEX ingest_mapping_topics_stream ON ingest_mapping_topics (stream_id);

INSERT INTO ingest_mapping_topics (mapping_id, stream_id, topic)
SELECT id, stream_id, NULL FROM ingest_mappings, unnest(string_to_array(mapping_ids, ',')) AS id WHERE id <> '';

ALTER TABLE ingest_mappings DROP COLUMN mapping_ids;
ALTER TABLE ingest_mappings ADD COLUMN stopping BOOLEAN NOT NULL DEFAULT FALSE;
