package io.tributary.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tributary.ingest.BatchMemory;
import io.tributary.ingest.PipelineSpec;
import io.tributary.ingest.Subscription;
import io.tributary.schema.SchemaSource;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;

/**
 * The pipelines of a process together hold at most about their memory limit of records ({@link BatchMemory}): with
 * large records a 512 MB server ran out of heap on one stream's 64 MB batches, and on three streams catching up at
 * once, and the stream retried the same batch and failed again.
 */
class PipelineMemoryTest extends KafkaPipelineHarness {

    @Test
    void batchesCloseWhenThePipelinesHoldTheirMemoryLimitAndGiveItBackWhenWritten() throws Exception {
        String topic = "large_records";
        topics.createTopic(topic, 1);
        PipelineSpec spec = stream("large_records", new Subscription.Topics(List.of(topic)),
                new SchemaSource.Plain(), topics.endOffsets(topic));
        String pad = "x".repeat(100_000);
        int records = 60;
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(Map.<String, Object>of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers()), new ByteArraySerializer(),
                new ByteArraySerializer())) {
            for (int i = 0; i < records; i++) {
                producer.send(new ProducerRecord<>(topic, 0, null, utf8("{\"id\":" + i + ",\"name\":\"" + pad
                        + "\"}")));
            }
            producer.flush();
        }
        // 6 MB waiting, well under max-batch-bytes (64 MB) and max-batch-records: without the shared limit the
        // catch-up is one batch (or two, as the fetches come), held whole while it is written.
        BatchMemory memory = new BatchMemory(1 << 20);
        PipelineSettings settings = new PipelineSettings(Duration.ofSeconds(30), 100_000, 64L << 20,
                Duration.ofSeconds(30), PipelineSettings.NEVER, PipelineSettings.SESSION_TIMEOUT,
                PipelineSettings.MAX_STALENESS, memory);
        StreamPipeline pipeline = start(spec, settings);
        await().atMost(Duration.ofSeconds(60)).until(() -> pipeline.status().rowsIngested() == records);
        assertThat(awaitRows(spec, records)).hasSize(records);
        assertThat(pipeline.status().tableVersion())
                .as("batches closed at about 1 MB of records held, not at the 30 s trigger or the log end")
                .isGreaterThanOrEqualTo(3);
        await().atMost(Duration.ofSeconds(10)).until(() -> memory.held() == 0);
        pipeline.stop();
        assertThat(memory.held()).as("nothing held once every batch is written").isZero();
    }
}
