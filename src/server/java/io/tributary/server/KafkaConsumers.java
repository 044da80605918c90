package io.tributary.server;

import io.tributary.ingest.PipelineSpec;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/** The Kafka consumer of one stream: the connection's properties plus what exactly-once ingestion requires. */
final class KafkaConsumers {

    static final int FETCH_MIN_BYTES = 1 << 20;

    private KafkaConsumers() {}

    static Map<String, Object> properties(PipelineSpec spec, PipelineSettings settings) {
        Map<String, Object> props = new HashMap<>(spec.kafkaProperties());
        props.put(ConsumerConfig.GROUP_ID_CONFIG, "tributary-" + spec.streamId());
        props.put(ConsumerConfig.CLIENT_ID_CONFIG, "tributary-" + spec.streamId());
        // The table is the source of truth for positions; offsets committed to Kafka would only be a second,
        // disagreeing copy.
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        // Every assignment seeks explicitly; this only matters for a partition the seek has not reached yet.
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        // New topics matching a pattern, and new partitions, show up with the next metadata refresh.
        props.put(ConsumerConfig.METADATA_MAX_AGE_CONFIG, String.valueOf(settings.topicRefresh().toMillis()));
        props.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, String.valueOf(Math.min(5000, settings.maxBatchRecords())));
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        // At a steady rate Kafka's defaults (a fetch answered as soon as one byte is there) cost a fetch per producer
        // batch, about 200 a second at 5,000 records/s: a third of the server's CPU and of the broker's. A fetch
        // instead waits for 1 MB or a twentieth of the trigger interval (5-50 ms), which a backlog never waits for and
        // a record at the log end waits at most that long for, against the interval it is committed at anyway.
        props.put(ConsumerConfig.FETCH_MIN_BYTES_CONFIG, String.valueOf(FETCH_MIN_BYTES));
        props.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, String.valueOf(fetchMaxWaitMs(settings)));
        // Every server runs a consumer in the stream's group and the partitions are spread over them. Cooperative
        // rebalancing moves only the partitions that change owner: a server joining or leaving does not stop the
        // others (the eager default revokes every member's partitions at each change, and the range assignor then
        // reshuffles most of them, each move a seek back to the table and a batch read again).
        props.put(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG, CooperativeStickyAssignor.class.getName());
        // A killed server's partitions go to the others after this, not after Kafka's 45 s default.
        props.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, String.valueOf(settings.sessionTimeout().toMillis()));
        props.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG,
                String.valueOf(Math.max(1, settings.heartbeatInterval().toMillis())));
        return props;
    }

    static long fetchMaxWaitMs(PipelineSettings settings) {
        return Math.max(5, Math.min(50, settings.triggerInterval().toMillis() / 20));
    }

    static KafkaConsumer<byte[], byte[]> create(PipelineSpec spec, PipelineSettings settings) {
        return new KafkaConsumer<>(properties(spec, settings), new ByteArrayDeserializer(),
                new ByteArrayDeserializer());
    }
}
