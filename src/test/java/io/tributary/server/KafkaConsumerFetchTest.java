package io.tributary.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.ingest.PipelineSpec;
import io.tributary.ingest.Subscription;
import io.tributary.schema.SchemaSource;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * A stream's consumer at a trickle: records arriving every few milliseconds must not cost a fetch each. With Kafka's
 * defaults (answer as soon as one byte is there) the consumer and the broker handled a fetch per producer batch, about
 * 200 a second at 5,000 records/s, which took a third of the server's and of the broker's CPU in bench/online.
 */
class KafkaConsumerFetchTest extends KafkaPipelineHarness {

    @Test
    void aTrickleOfRecordsIsFetchedInAFewFetchesPerTriggerIntervalNotOnePerBatch() throws Exception {
        topics.createTopic("trickle", 1);
        PipelineSpec spec = new PipelineSpec("trickle-id", "main.test.trickle", dir.resolve("t").toString(),
                new Subscription.Topics(List.of("trickle")), Map.of("bootstrap.servers", kafka.bootstrapServers()),
                new SchemaSource.Plain(), new SchemaSource.Plain(), Instant.now());
        PipelineSettings settings = new PipelineSettings(Duration.ofSeconds(1), 100_000, 64L << 20,
                Duration.ofSeconds(30));
        TopicPartition tp = new TopicPartition("trickle", 0);
        try (KafkaConsumer<byte[], byte[]> consumer = KafkaConsumers.create(spec, settings)) {
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            consumer.poll(Duration.ofMillis(200)); // connected, the first (empty) fetches done
            double fetchesBefore = fetches(consumer);
            int received = 0;
            long end = System.nanoTime() + Duration.ofSeconds(2).toNanos();
            int sent = 0;
            while (System.nanoTime() < end) {
                // one small record every 5 ms, flushed at once: a producer batch each, as a paced producer sends them
                topics.send("trickle", 0, null, ("r" + sent++).getBytes());
                topics.flush();
                received += consumer.poll(Duration.ofMillis(5)).count();
            }
            long drain = System.nanoTime() + Duration.ofSeconds(2).toNanos();
            while (received < sent && System.nanoTime() < drain) {
                received += consumer.poll(Duration.ofMillis(50)).count();
            }
            double fetched = fetches(consumer) - fetchesBefore;
            assertThat(received).as("every record is read").isEqualTo(sent);
            assertThat(sent).as("the trickle").isGreaterThan(100);
            // 1 s trigger: a fetch waits up to 50 ms for data, so about 20 per second, 4 s in all; one per batch
            // would be one per record here
            assertThat(fetched).as("fetches for %d records over about 4 s", sent).isLessThan(120);
        }
    }

    private static double fetches(KafkaConsumer<byte[], byte[]> consumer) {
        for (Map.Entry<MetricName, ? extends Metric> m : consumer.metrics().entrySet()) {
            if (m.getKey().name().equals("fetch-total")
                    && m.getKey().group().equals("consumer-fetch-manager-metrics")) {
                return ((Number) m.getValue().metricValue()).doubleValue();
            }
        }
        throw new AssertionError("no fetch-total metric");
    }
}
