package io.tributary.runtime;

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
import java.util.Map;

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
        PipelineStatus status = new PipelineStatus();
        return new StreamPipeline(spec, settings, new TableIngesters(tables), status,
                new PipelineMetrics(registry, spec.streamName(), status));
    }
}
