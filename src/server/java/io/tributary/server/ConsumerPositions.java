package io.tributary.server;

import io.tributary.delta.PartitionKey;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.common.TopicPartition;

/** Between the table's positions and a consumer's: where to seek, and where an idle stream stands. */
final class ConsumerPositions {
    private static final Duration PROBE_TIMEOUT = Duration.ofSeconds(15);

    private ConsumerPositions() {}

    /** Seeks every partition to the table's position, or to its beginning when the table has none for it. */
    static void seek(Consumer<?, ?> consumer, Collection<TopicPartition> partitions, Map<PartitionKey, Long> table) {
        List<TopicPartition> fromBeginning = new ArrayList<>();
        for (TopicPartition tp : partitions) {
            Long position = table.get(new PartitionKey(tp.topic(), tp.partition()));
            if (position == null) {
                fromBeginning.add(tp);
            } else {
                consumer.seek(tp, position);
            }
        }
        if (!fromBeginning.isEmpty()) {
            consumer.seekToBeginning(fromBeginning);
        }
    }

    /**
     * The table's positions, moved past what the consumer skipped without a row (transaction markers, compacted
     * offsets), so such offsets do not look like waiting records to {@link IdleWatch}.
     */
    static Map<PartitionKey, Long> idle(Consumer<?, ?> consumer, Map<PartitionKey, Long> table) {
        Map<PartitionKey, Long> at = new HashMap<>(table);
        for (TopicPartition tp : consumer.assignment()) {
            try {
                at.merge(new PartitionKey(tp.topic(), tp.partition()), consumer.position(tp, PROBE_TIMEOUT),
                        Math::max);
            } catch (RuntimeException e) {
                // The table's position stands; at worst the watch wakes the stream once for nothing.
            }
        }
        // A fresh instance each time: IdleWatch tells a new idle period from the last one by identity.
        return Collections.unmodifiableMap(at);
    }
}
