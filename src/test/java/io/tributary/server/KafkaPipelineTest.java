package io.tributary.server;

import static io.tributary.testing.KafkaTestSupport.coordinates;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tributary.delta.PartitionKey;
import io.tributary.ingest.IngestionStatus;
import io.tributary.ingest.PipelineSpec;
import io.tributary.ingest.Subscription;
import io.tributary.schema.SchemaSource;
import io.tributary.testing.KafkaTestSupport;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * The server pipeline's subscriptions against a real broker and real Delta tables: subscribe, pattern and assign
 * pick up exactly what they should, nothing lands after stop, and a rebalance loses and duplicates nothing. Decoding:
 * {@link KafkaPipelineDecodingTest}.
 */
class KafkaPipelineTest extends KafkaPipelineHarness {

    @Test
    void subscribeIngestsExactlyWhatWasProducedAfterCreate() {
        topics.createTopic("sub-a", 2);
        topics.createTopic("sub-b", 2);
        for (int p = 0; p < 2; p++) {
            for (int i = 0; i < 5; i++) {
                topics.send("sub-a", p, utf8("early"), utf8(json(-1)));
                topics.send("sub-b", p, utf8("early"), utf8(json(-1)));
            }
        }
        topics.flush();
        PipelineSpec spec = stream("subscribe", new Subscription.Topics(List.of("sub-a", "sub-b")),
                new SchemaSource.JsonSchema(JSON), topics.endOffsets("sub-a", "sub-b"));
        StreamPipeline pipeline = start(spec, FAST);
        for (int i = 5; i < 25; i++) {
            for (int p = 0; p < 2; p++) {
                topics.send("sub-a", p, utf8("k" + i), utf8(json(i)));
                topics.send("sub-b", p, utf8("k" + i), utf8(json(i)));
            }
        }
        topics.flush();
        List<Map<String, Object>> rows = awaitRows(spec, 80);
        List<String> want = new ArrayList<>(expected("sub-a", 2, 5, 25));
        want.addAll(expected("sub-b", 2, 5, 25));
        assertThat(coordinates(rows)).containsExactlyElementsOf(want);
        for (Map<String, Object> r : rows) {
            long i = (Long) r.get("kafka_offset");
            assertThat(r.get("key")).isEqualTo("k" + i);
            assertThat(r.get("value")).isEqualTo(Map.of("id", i, "name", "n" + i));
            assertThat(r.get("record_source")).isEqualTo("stream");
            assertThat((Instant) r.get("stream_record_timestamp")).isBetween(Instant.now().minusSeconds(120),
                    Instant.now());
        }
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            IngestionStatus s = pipeline.status();
            assertThat(s.state()).isEqualTo(IngestionStatus.State.RUNNING);
            assertThat(s.rowsIngested()).isEqualTo(80);
            assertThat(s.decodeFailures()).isZero();
            assertThat(s.lastCommitAt()).isNotNull();
            assertThat(s.partitions()).extracting(ps -> ps.topic() + "/" + ps.partition() + "=" + ps.committedOffset()
                    + " lag " + ps.lag()).containsExactly("sub-a/0=25 lag 0", "sub-a/1=25 lag 0", "sub-b/0=25 lag 0",
                            "sub-b/1=25 lag 0");
        });
    }

    @Test
    void aPatternPicksUpTopicsCreatedLaterFromTheirBeginning() {
        topics.createTopic("pat-1", 1);
        PipelineSpec spec = stream("pattern", new Subscription.Pattern("pat-.*"), new SchemaSource.Plain(),
                topics.endOffsets("pat-1"));
        start(spec, FAST);
        for (int i = 0; i < 10; i++) {
            topics.send("pat-1", 0, null, utf8("v" + i));
        }
        topics.createTopic("pat-2", 2);
        for (int i = 0; i < 10; i++) {
            topics.send("pat-2", i % 2, null, utf8("w" + i));
        }
        topics.flush();
        List<Map<String, Object>> rows = awaitRows(spec, 20);
        List<String> want = new ArrayList<>(expected("pat-1", 1, 0, 10));
        want.addAll(expected("pat-2", 2, 0, 5));
        assertThat(coordinates(rows)).containsExactlyElementsOf(want);
        assertThat(rows).allSatisfy(r -> assertThat(r.get("key")).isNull());
    }

    @Test
    void assignPicksUpListedPartitionsAddedLater() {
        topics.createTopic("asg", 1);
        PipelineSpec spec = stream("assign", new Subscription.Assign(Map.of("asg", List.of(0, 1))),
                new SchemaSource.Plain(), topics.endOffsets("asg"));
        start(spec, FAST);
        topics.addPartitions("asg", 3);
        for (int i = 0; i < 6; i++) {
            topics.send("asg", i % 3, null, utf8("v" + i));
        }
        topics.flush();
        List<Map<String, Object>> rows = awaitRows(spec, 4);
        assertThat(coordinates(rows)).containsExactly("asg/0/0", "asg/0/1", "asg/1/0", "asg/1/1");
        assertThat(rows).extracting(r -> r.get("value")).containsExactly("v0", "v3", "v1", "v4");
    }

    @Test
    void noWriteLandsAfterStopReturns() throws Exception {
        topics.createTopic("stop", 2);
        PipelineSpec spec = stream("stop", new Subscription.Topics(List.of("stop")), new SchemaSource.Plain(),
                topics.endOffsets("stop"));
        StreamPipeline pipeline = start(spec, new PipelineSettings(Duration.ofMillis(100), 500, 64L << 20,
                Duration.ofSeconds(1)));
        AtomicBoolean producing = new AtomicBoolean(true);
        Thread producer = new Thread(() -> {
            for (int i = 0; producing.get(); i++) {
                topics.send("stop", i % 2, null, utf8("v" + i));
                if (i % 200 == 0) {
                    topics.flush();
                }
            }
        });
        producer.start();
        awaitRows(spec, 1000);
        pipeline.stop();
        running.remove(pipeline);
        long version = tables.open(spec.tableLocation()).status().version();
        // Records keep arriving, and for two seconds not one commit of the stopped pipeline lands.
        await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(200))
                .until(() -> tables.open(spec.tableLocation()).status().version() == version);
        producing.set(false);
        producer.join();
        assertThat(tables.open(spec.tableLocation()).status().version()).isEqualTo(version);
        List<Map<String, Object>> rows = KafkaTestSupport.rows(tables, spec.tableLocation());
        Map<PartitionKey, Long> positions = tables.open(spec.tableLocation()).positions();
        List<String> want = new ArrayList<>();
        for (int p = 0; p < 2; p++) {
            for (long o = 0; o < positions.get(new PartitionKey("stop", p)); o++) {
                want.add("stop/" + p + "/" + o);
            }
        }
        assertThat(coordinates(rows)).containsExactlyElementsOf(want);
    }

    @Test
    void twoConsumersInOneGroupWithARebalanceInTheMiddle() throws Exception {
        topics.createTopic("group", 4);
        PipelineSpec spec = stream("group", new Subscription.Topics(List.of("group")), new SchemaSource.Plain(),
                topics.endOffsets("group"));
        PipelineSettings settings = new PipelineSettings(Duration.ofMillis(200), 300, 64L << 20,
                Duration.ofSeconds(1));
        KafkaStreamFixture.RecordingConsumers consumers = new KafkaStreamFixture.RecordingConsumers();
        StreamPipeline first = start(spec, settings, consumers);
        int perPartition = 0;
        for (int round = 0; round < 3; round++) {
            for (int i = 0; i < 500; i++) {
                topics.send("group", i % 4, null, utf8("v"));
            }
            topics.flush();
            perPartition += 125;
            int written = 4 * perPartition;
            await().atMost(Duration.ofSeconds(60)).until(() -> KafkaTestSupport.rows(tables, spec.tableLocation()).size() >= written);
            if (round == 0) {
                // The first consumer holds all four partitions until the second joins the group.
                await().atMost(Duration.ofSeconds(30)).until(() -> consumers.holding.get(0).size() == 4);
                start(spec, settings, consumers);
                // A rebalance: the group takes partitions from the first consumer and gives them to the second.
                await().atMost(Duration.ofSeconds(60)).until(() -> consumers.holding.size() == 2
                        && !consumers.holding.get(1).isEmpty() && consumers.holding.get(0).size() < 4);
                assertThat(consumers.revoked).isNotEmpty();
            } else if (round == 1) {
                first.stop();
                running.remove(first);
                // The second consumer takes over what the first held.
                await().atMost(Duration.ofSeconds(60)).until(() -> consumers.holding.get(1).size() == 4);
            }
        }
        List<Map<String, Object>> rows = awaitRows(spec, 4 * perPartition);
        assertThat(coordinates(rows)).containsExactlyElementsOf(expected4(perPartition));
    }

    private static List<String> expected4(int perPartition) {
        List<String> out = new ArrayList<>();
        for (int p = 0; p < 4; p++) {
            for (int o = 0; o < perPartition; o++) {
                out.add("group/" + p + "/" + o);
            }
        }
        return out;
    }
}
