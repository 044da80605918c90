package io.tributary.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

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
 * When a batch closes against a real broker, with trigger intervals long enough that closing on the timer would
 * miss every deadline here: a consumer at the end of its partitions commits what it has at once when the previous
 * batch closed over an interval ago, or when the batch is half full; it never commits twice within an interval.
 */
class BatchClosingPipelineTest extends KafkaPipelineHarness {

    @Test
    void theFirstRecordAfterAQuietSpellIsCommittedAtOnceAndTheNextWaitsOutTheInterval() throws Exception {
        String topic = "quiet_spell";
        topics.createTopic(topic, 1);
        PipelineSpec spec = stream("quiet_spell", new Subscription.Topics(List.of(topic)),
                new SchemaSource.Plain(), topics.endOffsets(topic));
        Duration trigger = Duration.ofSeconds(6);
        StreamPipeline pipeline = start(spec, new PipelineSettings(trigger, 1000, 64L << 20, Duration.ofSeconds(30)));
        try (KafkaProducer<byte[], byte[]> producer = producer()) {
            // A first record shows the consumer joined and fetching (a fresh broker's group coordinator can take
            // seconds); then a quiet spell longer than the interval.
            producer.send(new ProducerRecord<>(topic, 0, null, utf8(json(0)))).get();
            await().atMost(Duration.ofSeconds(60)).until(() -> pipeline.status().rowsIngested() == 1);
            Thread.sleep(trigger.toMillis() + 500);

            long sent = System.nanoTime();
            producer.send(new ProducerRecord<>(topic, 0, null, utf8(json(1)))).get();
            await().atMost(Duration.ofSeconds(30)).until(() -> pipeline.status().rowsIngested() == 2);
            Duration first = Duration.ofNanos(System.nanoTime() - sent);
            assertThat(first).as("committed without waiting out the %s trigger", trigger)
                    .isLessThan(trigger.dividedBy(2));

            long secondSent = System.nanoTime();
            producer.send(new ProducerRecord<>(topic, 0, null, utf8(json(2)))).get();
            Thread.sleep(trigger.dividedBy(2).toMillis());
            assertThat(pipeline.status().rowsIngested()).as("at most one commit per trigger interval").isEqualTo(2);
            await().atMost(Duration.ofSeconds(30)).until(() -> pipeline.status().rowsIngested() == 3);
            assertThat(Duration.ofNanos(System.nanoTime() - secondSent)).isLessThan(trigger.multipliedBy(2));
        }
        assertThat(awaitRows(spec, 3)).hasSize(3);
    }

    @Test
    void theTailOfACatchUpIsCommittedAtOnceWhenItHoldsHalfABatch() throws Exception {
        String topic = "catch_up_tail";
        topics.createTopic(topic, 1);
        PipelineSpec spec = stream("catch_up_tail", new Subscription.Topics(List.of(topic)),
                new SchemaSource.Plain(), topics.endOffsets(topic));
        try (KafkaProducer<byte[], byte[]> producer = producer()) {
            for (int i = 0; i < 250; i++) {
                producer.send(new ProducerRecord<>(topic, 0, null, utf8(json(i))));
            }
            producer.flush();
        }
        Duration trigger = Duration.ofSeconds(60);
        long started = System.nanoTime();
        // Batches of 100 (the bound), 100, then a tail of 50 with nothing more to read.
        StreamPipeline pipeline = start(spec, new PipelineSettings(trigger, 100, 64L << 20, Duration.ofSeconds(30)));
        await().atMost(Duration.ofSeconds(50)).until(() -> pipeline.status().rowsIngested() == 250);
        assertThat(Duration.ofNanos(System.nanoTime() - started)).as("the tail did not wait for the 60 s trigger")
                .isLessThan(Duration.ofSeconds(50));
        assertThat(awaitRows(spec, 250)).hasSize(250);
        assertThat(pipeline.status().tableVersion()).as("three appends after the create").isEqualTo(3);
    }

    private static KafkaProducer<byte[], byte[]> producer() {
        return new KafkaProducer<>(Map.<String, Object>of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                kafka.bootstrapServers()), new ByteArraySerializer(), new ByteArraySerializer());
    }
}
