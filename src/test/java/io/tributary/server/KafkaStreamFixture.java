package io.tributary.server;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tributary.delta.PartitionKey;
import io.tributary.delta.Tables;
import io.tributary.ingest.PipelineSpec;
import io.tributary.ingest.Subscription;
import io.tributary.schema.SchemaSource;
import io.tributary.schema.SideSchema;
import io.tributary.schema.StreamSchema;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/** Streams for the pipeline tests, created as the registry creates them. */
final class KafkaStreamFixture {

    static final PipelineSettings FAST = new PipelineSettings(Duration.ofMillis(300), 100_000, 64L << 20,
            Duration.ofSeconds(1));

    private KafkaStreamFixture() {}

    /** Creates the stream's table starting at {@code start} (the registry records the partitions' end offsets). */
    static PipelineSpec create(Tables tables, String name, Subscription subscription, SchemaSource key,
            SchemaSource value, Map<PartitionKey, Long> start, Map<String, String> kafkaProperties) {
        return create(tables, name, subscription, key, value, start, Map.of(), kafkaProperties);
    }

    /** A stream with {@code rescue_undecodable}: its table ends with {@code _rescued_data}. */
    static PipelineSpec createRescuing(Tables tables, String name, Subscription subscription, SchemaSource key,
            SchemaSource value, Map<PartitionKey, Long> start, Map<String, String> kafkaProperties) {
        String location = tables.defaultLocation("main", "test", name);
        StreamSchema schema = StreamSchema.of(SideSchema.compile(key, "key_schema"),
                SideSchema.compile(value, "payload_schema"), true);
        tables.create(location, schema.rowSchema(), start);
        return new PipelineSpec("id-" + name, "main.test." + name, location, subscription, kafkaProperties, key, value,
                Instant.now(), true);
    }

    /** As the registry creates it now: with the topic ids the start positions were read on. */
    static PipelineSpec create(Tables tables, String name, Subscription subscription, SchemaSource key,
            SchemaSource value, Map<PartitionKey, Long> start, Map<String, String> topicIds,
            Map<String, String> kafkaProperties) {
        String location = tables.defaultLocation("main", "test", name);
        StreamSchema schema = StreamSchema.of(SideSchema.compile(key, "key_schema"),
                SideSchema.compile(value, "payload_schema"));
        tables.create(location, schema.rowSchema(), start, topicIds);
        return new PipelineSpec("id-" + name, "main.test." + name, location, subscription, kafkaProperties, key, value,
                Instant.now());
    }

    static StreamPipeline pipeline(Tables tables, PipelineSpec spec, PipelineSettings settings) {
        return pipeline(tables, spec, settings, new SimpleMeterRegistry());
    }

    static StreamPipeline pipeline(Tables tables, PipelineSpec spec, PipelineSettings settings,
            MeterRegistry registry) {
        return pipeline(tables, spec, settings, KafkaConsumers::create, registry);
    }

    static StreamPipeline pipeline(Tables tables, PipelineSpec spec, PipelineSettings settings,
            StreamPipeline.ConsumerFactory consumers, MeterRegistry registry) {
        PipelineStatus status = new PipelineStatus();
        return new StreamPipeline(spec, settings, new TableIngesters(tables), consumers, status,
                new PipelineMetrics(registry, spec.streamName(), status));
    }

    /**
     * The pipeline's real consumers, each telling {@link #assigned} and {@link #revoked} which partitions its group
     * gave it and took away: so a test can see that a rebalance happened, not only infer it.
     */
    static final class RecordingConsumers implements StreamPipeline.ConsumerFactory {
        final List<Set<TopicPartition>> assigned = new CopyOnWriteArrayList<>();
        final List<Set<TopicPartition>> revoked = new CopyOnWriteArrayList<>();
        /** Each consumer's partitions now, by the order the consumers were created. */
        final List<Set<TopicPartition>> holding = new CopyOnWriteArrayList<>();

        @Override
        public Consumer<byte[], byte[]> create(PipelineSpec spec, PipelineSettings settings) {
            Set<TopicPartition> holds = ConcurrentHashMap.newKeySet();
            holding.add(holds);
            return new KafkaConsumer<>(KafkaConsumers.properties(spec, settings), new ByteArrayDeserializer(),
                    new ByteArrayDeserializer()) {
                @Override
                public void subscribe(Collection<String> topics, ConsumerRebalanceListener listener) {
                    super.subscribe(topics, new ConsumerRebalanceListener() {
                        @Override
                        public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
                            listener.onPartitionsRevoked(partitions);
                            holds.removeAll(partitions);
                            if (!partitions.isEmpty()) {
                                revoked.add(Set.copyOf(partitions));
                            }
                        }

                        @Override
                        public void onPartitionsLost(Collection<TopicPartition> partitions) {
                            listener.onPartitionsLost(partitions);
                            holds.removeAll(partitions);
                        }

                        @Override
                        public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
                            listener.onPartitionsAssigned(partitions);
                            holds.addAll(partitions);
                            if (!partitions.isEmpty()) {
                                assigned.add(Set.copyOf(partitions));
                            }
                        }
                    });
                }
            };
        }
    }
}
