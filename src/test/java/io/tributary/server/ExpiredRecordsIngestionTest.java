package io.tributary.server;

import static io.tributary.server.KafkaPipelineHarness.utf8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tributary.ingest.IngestionStatus;
import io.tributary.ingest.PipelineSpec;
import io.tributary.ingest.Subscription;
import io.tributary.schema.SchemaSource;
import io.tributary.testing.KafkaTestSupport;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Records the topic no longer has when the stream comes to read them (retention passed while the stream was stopped
 * or behind, or someone ran DeleteRecords): the consumer can only go on from the log's start, so those offsets are
 * lost, and the stream must say so, durably, in the table's log, rather than skip them without a word. Gaps that lose
 * nothing (transaction markers) must not be reported.
 */
class ExpiredRecordsIngestionTest extends KafkaPipelineHarness {

    static final PipelineSettings ACTIVE = new PipelineSettings(Duration.ofMillis(300), 100_000, 64L << 20,
            Duration.ofSeconds(1), Duration.ofMinutes(10));

    static Admin admin;

    @BeforeAll
    static void openAdmin() {
        admin = Admin.create(Map.of("bootstrap.servers", kafka.bootstrapServers()));
    }

    @AfterAll
    static void closeAdmin() {
        admin.close();
    }

    @Test
    void offsetsDeletedBeforeTheStreamReadThemAreReportedAsLost() throws Exception {
        topics.createTopic("expiring", 1);
        PipelineSpec spec = stream("expiring_stream", "expiring");
        StreamPipeline first = start(spec, ACTIVE);
        produce("expiring", 0, 10);
        awaitExactly(spec, 10);
        first.stop();
        running.remove(first);

        // While no server reads the stream, 90 more records arrive and the first 40 of them expire.
        produce("expiring", 10, 90);
        admin.deleteRecords(Map.of(new TopicPartition("expiring", 0), RecordsToDelete.beforeOffset(50))).all().get();

        StreamPipeline second = start(spec, ACTIVE);
        awaitExactly(spec, 60);
        assertThat(KafkaTestSupport.rows(tables, spec.tableLocation())).extracting(r -> (Long) r.get("kafka_offset"))
                .containsExactlyInAnyOrderElementsOf(offsets(0, 10, 50, 100));
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            List<IngestionStatus.LostOffsets> lost = second.status().lostOffsets();
            assertThat(lost).hasSize(1);
            IngestionStatus.LostOffsets l = lost.get(0);
            assertThat(l.topic()).isEqualTo("expiring");
            assertThat(l.partition()).isZero();
            assertThat(l.fromOffset()).isEqualTo(10);
            assertThat(l.toOffset()).isEqualTo(50);
            assertThat(l.totalOffsetsLost()).isEqualTo(40);
            assertThat(l.message()).contains("offsets 10 to 49 of expiring/0", "deleted from the topic",
                    "40 offsets lost");
        });
        // The table itself says so, for any process that reads the status from the log (stream-api on AWS, a restart).
        assertThat(IngestionStatus.LostOffsets.of(tables.open(spec.tableLocation()).positionDetails()))
                .extracting(IngestionStatus.LostOffsets::totalOffsetsLost).containsExactly(40L);

        // A second loss on the same partition adds up and names the newest range.
        second.stop();
        running.remove(second);
        produce("expiring", 100, 20);
        admin.deleteRecords(Map.of(new TopicPartition("expiring", 0), RecordsToDelete.beforeOffset(105))).all().get();
        StreamPipeline third = start(spec, ACTIVE);
        awaitExactly(spec, 75);
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            IngestionStatus.LostOffsets l = third.status().lostOffsets().get(0);
            assertThat(l.fromOffset()).isEqualTo(100);
            assertThat(l.toOffset()).isEqualTo(105);
            assertThat(l.totalOffsetsLost()).isEqualTo(45);
        });
    }

    @Test
    void transactionMarkersAreGapsThatLoseNothing() throws Exception {
        topics.createTopic("transactional", 1);
        PipelineSpec spec = stream("transactional_stream", "transactional");
        StreamPipeline pipeline = start(spec, ACTIVE);
        Properties props = new Properties();
        props.put("bootstrap.servers", kafka.bootstrapServers());
        props.put("transactional.id", "expired-records-test");
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props, new ByteArraySerializer(),
                new ByteArraySerializer())) {
            producer.initTransactions();
            for (int t = 0; t < 5; t++) {
                producer.beginTransaction();
                for (int i = 0; i < 3; i++) {
                    producer.send(new ProducerRecord<>("transactional", 0, null, utf8("t" + t + "-" + i)));
                }
                producer.commitTransaction();
                awaitExactly(spec, 3 * (t + 1));
            }
        }
        assertThat(pipeline.status().lostOffsets()).isEmpty();
        assertThat(IngestionStatus.LostOffsets.of(tables.open(spec.tableLocation()).positionDetails())).isEmpty();
    }

    private PipelineSpec stream(String name, String topic) {
        return KafkaStreamFixture.create(tables, name, new Subscription.Topics(List.of(topic)), new SchemaSource.Plain(),
                new SchemaSource.Plain(), topics.endOffsets(topic), Map.of("bootstrap.servers", kafka.bootstrapServers()));
    }

    private static void produce(String topic, int from, int count) {
        for (int i = from; i < from + count; i++) {
            topics.send(topic, 0, null, utf8("r" + i));
        }
        topics.flush();
    }

    private static void awaitExactly(PipelineSpec spec, int count) {
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200))
                .until(() -> KafkaTestSupport.rows(tables, spec.tableLocation()).size() >= count);
        assertThat(KafkaTestSupport.rows(tables, spec.tableLocation())).hasSize(count);
    }

    private static List<Long> offsets(long a, long b, long c, long d) {
        List<Long> out = new java.util.ArrayList<>();
        for (long o = a; o < b; o++) {
            out.add(o);
        }
        for (long o = c; o < d; o++) {
            out.add(o);
        }
        return out;
    }
}
