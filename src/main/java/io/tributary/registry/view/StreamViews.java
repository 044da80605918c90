package io.tributary.registry.view;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.util.ByteArrayBuilder;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.tributary.ingest.IngestionStatus;
import io.tributary.registry.request.RegistryJson;
import io.tributary.registry.store.StreamRow;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * The stream as the API shows it (SPEC 2.3): its definition plus identity, state and statuses, written as JSON.
 *
 * <p>A stream's definition never changes after create, so each one is parsed once and kept as the raw JSON of its
 * top-level fields, in both forms the API shows (with and without schema texts); a view then only copies those and
 * writes the few live fields. A list page of 50 streams was otherwise 50 parses and 50 trees.
 */
public final class StreamViews {
    /**
     * The cache holds at most this many characters of JSON, weighed per entry: schemas can be large, so a count of
     * streams would not bound the memory (the stream-api function is small). Beyond it Caffeine evicts the entries
     * least likely to be read again; the cache only saves work, and ids are never reused.
     */
    static final long MAX_CACHED_CHARS = 16L << 20;
    private static final Cache<String, Members> CACHE = Caffeine.newBuilder()
            .maximumWeight(MAX_CACHED_CHARS)
            .weigher((String id, Members m) -> (int) Math.min(Integer.MAX_VALUE, m.chars()))
            .build();

    private StreamViews() {}

    /**
     * Top-level fields of a definition as raw JSON values: all of them, and with the schema texts left out.
     *
     * @param direct the stream has no Kafka (SPEC 11.1): its status lists its producers, even none
     */
    private record Members(List<Map.Entry<String, String>> full, List<Map.Entry<String, String>> withoutSchemas,
            long chars, boolean direct) {}

    public static JsonBody one(StreamRow row, IngestionStatus status) {
        return one(row, status, null);
    }

    /** @param rescuedRecords {@code ingestion_status.rescued_records}; null for a stream without rescue */
    public static JsonBody one(StreamRow row, IngestionStatus status, Long rescuedRecords) {
        return write(g -> view(g, row, status, true, rescuedRecords));
    }

    public static JsonBody page(List<StreamRow> rows, List<IngestionStatus> statuses, boolean includeSchemas,
            String nextPageToken) {
        return write(g -> {
            g.writeStartObject();
            g.writeArrayFieldStart("streams");
            for (int i = 0; i < rows.size(); i++) {
                view(g, rows.get(i), statuses.get(i), includeSchemas, null);
            }
            g.writeEndArray();
            if (nextPageToken != null) {
                g.writeStringField("next_page_token", nextPageToken);
            }
            g.writeEndObject();
        });
    }

    public static void forget(String streamId) {
        CACHE.invalidate(streamId);
    }

    private interface Writing {
        public void to(JsonGenerator g) throws IOException;
    }

    private static JsonBody write(Writing writing) {
        ByteArrayBuilder out = new ByteArrayBuilder(4096);
        try (JsonGenerator g = RegistryJson.MAPPER.getFactory().createGenerator(out)) {
            writing.to(g);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return new JsonBody(out.toByteArray());
    }

    private static void view(JsonGenerator g, StreamRow row, IngestionStatus status, boolean includeSchemas,
            Long rescuedRecords) throws IOException {
        Members members = members(row);
        g.writeStartObject();
        for (Map.Entry<String, String> m : includeSchemas ? members.full() : members.withoutSchemas()) {
            g.writeFieldName(m.getKey());
            g.writeRawValue(m.getValue());
        }
        g.writeStringField("stream_id", row.id);
        g.writeStringField("created_at", time(row.createdAt));
        g.writeStringField("created_by", row.createdBy);
        if (status != null) {
            g.writeStringField("state", status.state().name());
            if (status.stateMessage() != null) {
                g.writeStringField("state_message", status.stateMessage());
            }
            g.writeObjectFieldStart("ingestion_status");
            if (status.lastCommitAt() != null) {
                g.writeStringField("last_commit_at", time(status.lastCommitAt()));
            }
            if (status.tableVersion() >= 0) {
                g.writeNumberField("table_version", status.tableVersion());
            }
            g.writeNumberField("rows_ingested", status.rowsIngested());
            g.writeNumberField("decode_failures", status.decodeFailures());
            if (status.validThrough() != null) {
                g.writeStringField("valid_through", time(status.validThrough()));
            }
            if (rescuedRecords != null) {
                g.writeNumberField("rescued_records", rescuedRecords);
            }
            g.writeArrayFieldStart("partitions");
            boolean producers = members.direct();
            for (IngestionStatus.PartitionStatus p : status.partitions()) {
                if (p.partition() == io.tributary.delta.PartitionKey.PRODUCER) {
                    producers = true;
                    continue;
                }
                g.writeStartObject();
                g.writeStringField("topic", p.topic());
                g.writeNumberField("partition", p.partition());
                g.writeNumberField("committed_offset", p.committedOffset());
                if (p.lag() >= 0) {
                    g.writeNumberField("lag", p.lag());
                }
                if (p.lastCommitAt() != null) {
                    g.writeStringField("last_commit_at", time(p.lastCommitAt()));
                }
                if (p.validThrough() != null) {
                    g.writeStringField("valid_through", time(p.validThrough()));
                }
                g.writeEndObject();
            }
            g.writeEndArray();
            if (producers) {
                // Direct ingest: each producer's last committed sequence, from the table's log (SPEC "Direct ingest").
                g.writeArrayFieldStart("producers");
                for (IngestionStatus.PartitionStatus p : status.partitions()) {
                    if (p.partition() != io.tributary.delta.PartitionKey.PRODUCER) {
                        continue;
                    }
                    g.writeStartObject();
                    g.writeStringField("producer_id", p.topic());
                    g.writeNumberField("committed_sequence", p.committedOffset() - 1);
                    if (p.lastCommitAt() != null) {
                        g.writeStringField("last_commit_at", time(p.lastCommitAt()));
                    }
                    if (p.validThrough() != null) {
                        g.writeStringField("valid_through", time(p.validThrough()));
                    }
                    g.writeEndObject();
                }
                g.writeEndArray();
            }
            if (!status.topicRecreations().isEmpty()) {
                g.writeArrayFieldStart("topic_recreations");
                for (IngestionStatus.TopicRecreation r : status.topicRecreations()) {
                    g.writeStartObject();
                    g.writeStringField("topic", r.topic());
                    if (r.previousTopicId() != null) {
                        g.writeStringField("previous_topic_id", r.previousTopicId());
                    }
                    g.writeStringField("topic_id", r.topicId());
                    g.writeStringField("detected_at", time(r.at()));
                    g.writeStringField("message", r.message());
                    g.writeEndObject();
                }
                g.writeEndArray();
            }
            if (!status.lostOffsets().isEmpty()) {
                g.writeArrayFieldStart("lost_offsets");
                for (IngestionStatus.LostOffsets l : status.lostOffsets()) {
                    g.writeStartObject();
                    g.writeStringField("topic", l.topic());
                    g.writeNumberField("partition", l.partition());
                    g.writeNumberField("from_offset", l.fromOffset());
                    g.writeNumberField("to_offset", l.toOffset());
                    g.writeNumberField("total_offsets_lost", l.totalOffsetsLost());
                    g.writeStringField("detected_at", time(l.at()));
                    g.writeStringField("message", l.message());
                    g.writeEndObject();
                }
                g.writeEndArray();
            }
            g.writeEndObject();
        }
        g.writeObjectFieldStart("backfill_status");
        g.writeStringField("state", row.backfillState);
        if (row.backfillMaxTimestamp != null) {
            g.writeStringField("backfill_max_timestamp", time(row.backfillMaxTimestamp));
        }
        if (row.ingestionMinTimestamp != null) {
            g.writeStringField("ingestion_min_timestamp", time(row.ingestionMinTimestamp));
        }
        g.writeBooleanField("forced", row.forced);
        if (row.rowsMerged != null) {
            g.writeNumberField("rows_merged", row.rowsMerged);
        }
        if (row.completedAt != null) {
            g.writeStringField("completed_at", time(row.completedAt));
        }
        g.writeEndObject();
        g.writeEndObject();
    }

    /** The characters of JSON the cache holds now, after pending evictions: for tests of its bound. */
    static long cachedChars() {
        CACHE.cleanUp();
        return CACHE.policy().eviction().orElseThrow().weightedSize().orElseThrow();
    }

    private static Members members(StreamRow row) {
        return CACHE.get(row.id, id -> parse(row.definition));
    }

    private static Members parse(String definition) {
        ObjectNode node = (ObjectNode) RegistryJson.read(definition, JsonNode.class);
        List<Map.Entry<String, String>> full = new ArrayList<>();
        List<Map.Entry<String, String>> withoutSchemas = new ArrayList<>();
        long chars = 0;
        for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext();) {
            Map.Entry<String, JsonNode> field = it.next();
            String raw = RegistryJson.write(field.getValue());
            full.add(Map.entry(field.getKey(), raw));
            chars += raw.length();
            if (field.getKey().equals("schema_config") && field.getValue() instanceof ObjectNode config) {
                String stripped = RegistryJson.write(withoutSchemaTexts(config));
                withoutSchemas.add(Map.entry(field.getKey(), stripped));
                chars += stripped.length();
            } else {
                withoutSchemas.add(Map.entry(field.getKey(), raw));
            }
        }
        boolean direct = node.path("source_config").has("direct_source_config");
        return new Members(List.copyOf(full), List.copyOf(withoutSchemas), chars, direct);
    }

    private static ObjectNode withoutSchemaTexts(ObjectNode schemaConfig) {
        ObjectNode copy = schemaConfig.deepCopy();
        JsonNode direct = copy.path("direct_schemas");
        for (String side : new String[] {"payload_schema", "key_schema"}) {
            if (direct.get(side) instanceof ObjectNode s) {
                s.remove("json_schema");
                s.remove("avro_schema");
                if (s.get("proto_schema") instanceof ObjectNode proto) {
                    proto.remove("schema_text");
                }
            }
        }
        return copy;
    }

    /** RFC 3339 in UTC, e.g. 2026-11-30T07:00:00.123Z. */
    public static String time(Instant instant) {
        return DateTimeFormatter.ISO_INSTANT.format(instant.truncatedTo(ChronoUnit.MICROS));
    }
}
