package io.tributary.delta;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.delta.kernel.Snapshot;
import io.tributary.delta.kernel.Snapshots;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Positions live in Delta domain metadata, one domain per partition ({@code tributary.position.<topic>.<partition>},
 * configuration {@code {"topic":..,"partition":..,"next":N,"commit":"<id>","topic_id":"<Kafka topic id>"}}, see
 * {@link PartitionPosition} for the optional {@code refill}, {@code recreated}, {@code max_timestamp} and
 * {@code last_commit_at}, both epoch milliseconds). Kernel's conflict checker fails a
 * commit when a concurrent winner set the same domain and lets it through otherwise, so writers of different
 * partitions never conflict while two writers of one partition cannot both commit. {@code commit} identifies the
 * attempt that wrote the position, so a writer can tell after an ambiguous failure whether its commit landed.
 */
final class PositionDomains {
    static final String PREFIX = "tributary.position.";
    /**
     * Direct-ingest producers ({@link PartitionKey#producer}): {@code tributary.producer.<id>}, configuration
     * {@code {"producer":..,"next":N,..}}, {@code next} being the sequence the producer's next batch must carry.
     */
    static final String PRODUCER_PREFIX = "tributary.producer.";
    private static final ObjectMapper JSON = new ObjectMapper();

    private PositionDomains() {}

    static String domain(PartitionKey p) {
        return p.isProducer() ? PRODUCER_PREFIX + p.topic() : PREFIX + p.topic() + "." + p.partition();
    }

    /** {@code decodeFailures}: the partition's decode failures since the table was created, this commit's included. */
    static String config(PartitionKey p, long next, String commitId, long decodeFailures) {
        return config(p, next, commitId, decodeFailures, Optional.empty(), false, Optional.empty());
    }

    static String config(PartitionKey p, long next, String commitId, long decodeFailures, Optional<String> topicId,
            boolean refill, Optional<PartitionPosition.Recreation> recreated) {
        return config(p, commitId, new PartitionPosition(next, topicId, refill, recreated, decodeFailures));
    }

    /** Everything a position records, written under {@code commitId}. */
    static String config(PartitionKey p, String commitId, PartitionPosition position) {
        ObjectNode n = JSON.createObjectNode();
        if (p.isProducer()) {
            n.put("producer", p.topic());
        } else {
            n.put("topic", p.topic());
            n.put("partition", p.partition());
        }
        n.put("next", position.next());
        n.put("commit", commitId);
        if (position.decodeFailures() > 0) {
            n.put("decode_failures", position.decodeFailures());
        }
        position.topicId().ifPresent(id -> n.put("topic_id", id));
        if (position.refill()) {
            n.put("refill", true);
        }
        position.recreated().ifPresent(r -> {
            ObjectNode m = n.putObject("recreated");
            r.previousTopicId().ifPresent(id -> m.put("previous_topic_id", id));
            m.put("previous_next", r.previousNext());
            m.put("topic_id", r.topicId());
            m.put("at", r.at().toEpochMilli());
        });
        position.maxTimestamp().ifPresent(t -> n.put("max_timestamp", t.toEpochMilli()));
        position.lastCommitAt().ifPresent(t -> n.put("last_commit_at", t.toEpochMilli()));
        position.lost().ifPresent(l -> {
            ObjectNode m = n.putObject("lost");
            m.put("from", l.from());
            m.put("to", l.to());
            m.put("total", l.total());
            m.put("at", l.at().toEpochMilli());
        });
        return n.toString();
    }

    /**
     * The position domain of a commit made at {@code at}: the range's values over what the table had ({@code prior},
     * null for a new partition). Decode failures and lost offsets add up; the id, the last recreation and the last
     * loss carry over while the topic stays the same. The newest record timestamp is the newest of the prior one and
     * the range's, and a range that adds records sets the partition's last commit time; a reset starts the new topic
     * without a timestamp or a loss, since none of its records is in the table yet.
     */
    static String config(PartitionKey p, OffsetRange range, String commitId, PartitionPosition prior, Instant at) {
        long failures = (prior == null ? 0 : prior.decodeFailures()) + range.decodeFailures();
        Optional<String> topicId = range.topicId() != null ? Optional.of(range.topicId())
                : prior == null ? Optional.empty() : prior.topicId();
        Optional<PartitionPosition.Recreation> recreated = range.reset();
        if (recreated.isEmpty() && prior != null && prior.recreated().isPresent()
                && topicId.equals(Optional.of(prior.recreated().get().topicId()))) {
            recreated = prior.recreated();
        }
        Optional<Instant> maxTimestamp = prior == null || range.reset().isPresent() ? Optional.empty()
                : prior.maxTimestamp();
        if (range.maxTimestampMs() >= 0 && (maxTimestamp.isEmpty()
                || maxTimestamp.get().toEpochMilli() < range.maxTimestampMs())) {
            maxTimestamp = Optional.of(Instant.ofEpochMilli(range.maxTimestampMs()));
        }
        Optional<Instant> lastCommitAt = range.next() > range.from() && range.reset().isEmpty() ? Optional.of(at)
                : prior == null ? Optional.empty() : prior.lastCommitAt();
        return config(p, commitId, new PartitionPosition(range.next(), topicId, range.refill(), recreated, failures,
                maxTimestamp, lastCommitAt, range.lossAfter(prior)));
    }

    /**
     * Reads all position domains of a snapshot. Enumerating domains needs Kernel internals (see {@link Snapshots});
     * the public API only looks up one domain by name.
     */
    static Map<PartitionKey, Long> read(Snapshot snapshot) {
        return read(snapshot, "next");
    }

    /** Decode failures per partition since the table was created; domains written before they were counted say 0. */
    static Map<PartitionKey, Long> decodeFailures(Snapshot snapshot) {
        return read(snapshot, "decode_failures");
    }

    /** Every position domain of a snapshot with all it records. */
    static Map<PartitionKey, PartitionPosition> details(Snapshot snapshot) {
        Map<PartitionKey, PartitionPosition> out = new TreeMap<>();
        for (Map.Entry<String, String> e : Snapshots.activeDomains(snapshot).entrySet()) {
            if (!isPosition(e.getKey())) {
                continue;
            }
            try {
                JsonNode n = JSON.readTree(e.getValue());
                JsonNode r = n.path("recreated");
                Optional<PartitionPosition.Recreation> recreated = r.isObject()
                        ? Optional.of(new PartitionPosition.Recreation(text(r, "previous_topic_id"),
                                r.path("previous_next").asLong(0), r.path("topic_id").asText(),
                                Instant.ofEpochMilli(r.path("at").asLong(0))))
                        : Optional.empty();
                JsonNode l = n.path("lost");
                Optional<PartitionPosition.Loss> lost = l.isObject()
                        ? Optional.of(new PartitionPosition.Loss(l.path("from").asLong(0), l.path("to").asLong(0),
                                l.path("total").asLong(0), Instant.ofEpochMilli(l.path("at").asLong(0))))
                        : Optional.empty();
                out.put(key(n),
                        new PartitionPosition(n.path("next").asLong(0), text(n, "topic_id"),
                                n.path("refill").asBoolean(false), recreated, n.path("decode_failures").asLong(0),
                                millis(n, "max_timestamp"), millis(n, "last_commit_at"), lost));
            } catch (IOException ex) {
                throw new UncheckedIOException("unreadable position domain " + e.getKey(), ex);
            }
        }
        return out;
    }

    private static boolean isPosition(String domain) {
        return domain.startsWith(PREFIX) || domain.startsWith(PRODUCER_PREFIX);
    }

    private static PartitionKey key(JsonNode n) {
        JsonNode producer = n.get("producer");
        return producer != null && producer.isTextual() ? PartitionKey.producer(producer.asText())
                : new PartitionKey(n.get("topic").asText(), n.get("partition").asInt());
    }

    private static Optional<Instant> millis(JsonNode n, String field) {
        JsonNode v = n.get(field);
        return v == null || !v.canConvertToLong() ? Optional.empty() : Optional.of(Instant.ofEpochMilli(v.asLong()));
    }

    private static Optional<String> text(JsonNode n, String field) {
        JsonNode v = n.get(field);
        return v == null || !v.isTextual() ? Optional.empty() : Optional.of(v.asText());
    }

    private static Map<PartitionKey, Long> read(Snapshot snapshot, String field) {
        Map<PartitionKey, Long> out = new TreeMap<>();
        for (Map.Entry<String, String> e : Snapshots.activeDomains(snapshot).entrySet()) {
            if (!isPosition(e.getKey())) {
                continue;
            }
            try {
                JsonNode n = JSON.readTree(e.getValue());
                out.put(key(n), n.path(field).asLong(0));
            } catch (IOException ex) {
                throw new UncheckedIOException("unreadable position domain " + e.getKey(), ex);
            }
        }
        return out;
    }
}
