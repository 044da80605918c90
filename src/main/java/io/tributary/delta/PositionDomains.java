package io.tributary.delta;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.delta.kernel.Snapshot;
import io.delta.kernel.internal.SnapshotImpl;
import io.delta.kernel.internal.actions.DomainMetadata;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.TreeMap;

/**
 * Positions live in Delta domain metadata, one domain per partition ({@code tributary.position.<topic>.<partition>},
 * configuration {@code {"topic":..,"partition":..,"next":N,"commit":"<id>"}}). Kernel's conflict checker fails a
 * commit when a concurrent winner set the same domain and lets it through otherwise, so writers of different
 * partitions never conflict while two writers of one partition cannot both commit. {@code commit} identifies the
 * attempt that wrote the position, so a writer can tell after an ambiguous failure whether its commit landed.
 */
final class PositionDomains {
    static final String PREFIX = "tributary.position.";
    private static final ObjectMapper JSON = new ObjectMapper();

    private PositionDomains() {}

    static String domain(PartitionKey p) {
        return PREFIX + p.topic() + "." + p.partition();
    }

    /** {@code decodeFailures}: the partition's decode failures since the table was created, this commit's included. */
    static String config(PartitionKey p, long next, String commitId, long decodeFailures) {
        ObjectNode n = JSON.createObjectNode();
        n.put("topic", p.topic());
        n.put("partition", p.partition());
        n.put("next", next);
        n.put("commit", commitId);
        if (decodeFailures > 0) {
            n.put("decode_failures", decodeFailures);
        }
        return n.toString();
    }

    /**
     * Reads all position domains of a snapshot. Enumerating domains needs Kernel's SnapshotImpl; the public API only
     * looks up one domain by name.
     */
    static Map<PartitionKey, Long> read(Snapshot snapshot) {
        return read(snapshot, "next");
    }

    /** Decode failures per partition since the table was created; domains written before they were counted say 0. */
    static Map<PartitionKey, Long> decodeFailures(Snapshot snapshot) {
        return read(snapshot, "decode_failures");
    }

    private static Map<PartitionKey, Long> read(Snapshot snapshot, String field) {
        Map<PartitionKey, Long> out = new TreeMap<>();
        for (Map.Entry<String, DomainMetadata> e : ((SnapshotImpl) snapshot).getActiveDomainMetadataMap().entrySet()) {
            if (!e.getKey().startsWith(PREFIX) || e.getValue().isRemoved()) {
                continue;
            }
            try {
                JsonNode n = JSON.readTree(e.getValue().getConfiguration());
                out.put(new PartitionKey(n.get("topic").asText(), n.get("partition").asInt()), n.path(field).asLong(0));
            } catch (IOException ex) {
                throw new UncheckedIOException("unreadable position domain " + e.getKey(), ex);
            }
        }
        return out;
    }
}
