package io.tributary.server;

import static io.tributary.server.KafkaPipelineHarness.utf8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tributary.delta.PartitionKey;
import io.tributary.delta.PartitionPosition;
import io.tributary.ingest.IngestionStatus;
import io.tributary.ingest.PipelineSpec;
import io.tributary.ingest.StartPositions;
import io.tributary.ingest.Subscription;
import io.tributary.schema.SchemaSource;
import io.tributary.testing.KafkaTestSupport;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.errors.TopicExistsException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A topic deleted and created again under the same name (issue 12, item 2): the server pipeline, against a real
 * broker, ingests the new topic from its beginning, whether its consumer runs through the recreate or the stream is
 * idle, and says so in its status. Every table is read back with Kernel's scan and compared row for row: the old
 * topic's rows and the new topic's, each once (values tell the two apart, since they share offsets).
 */
class TopicRecreateIngestionTest extends KafkaPipelineHarness {

    /** Idles after 1 s without records; the idle watch looks every 300 ms. */
    static final PipelineSettings IDLING = new PipelineSettings(Duration.ofMillis(300), 100_000, 64L << 20,
            Duration.ofSeconds(1), Duration.ofSeconds(1));
    /** Never idles while the test runs. */
    static final PipelineSettings ACTIVE = new PipelineSettings(Duration.ofMillis(300), 100_000, 64L << 20,
            Duration.ofSeconds(1), Duration.ofMinutes(10));

    static Admin admin;
    final List<IdleWatch> watches = new ArrayList<>();

    /** After the harness started the broker. */
    @BeforeAll
    static void openAdmin() {
        admin = Admin.create(Map.of("bootstrap.servers", kafka.bootstrapServers()));
    }

    @AfterAll
    static void closeAdmin() {
        admin.close();
    }

    /** Before the harness stops the pipelines, so no watch restarts one. */
    @AfterEach
    void closeWatches() {
        watches.forEach(IdleWatch::close);
    }

    @Test
    void aRunningStreamIngestsTheRecreatedTopicFromItsBeginningWithFewerPartitions() throws Exception {
        topics.createTopic("re-run", 3);
        String oldId = topicId("re-run");
        PipelineSpec spec = stream("re_run", "re-run", topics.endOffsets("re-run"));
        StreamPipeline pipeline = start(spec, ACTIVE);
        List<String> want = new ArrayList<>(produce("re-run", 3, 40, "old"));
        awaitSettledRows(spec, want.size());

        recreate("re-run", 2);
        String newId = topicId("re-run");
        want.addAll(produce("re-run", 2, 150, "new"));

        assertThat(awaitSettledRows(spec, want.size())).containsExactlyInAnyOrderElementsOf(want);
        assertRecreated(pipeline, spec, "re-run", oldId, newId);
        // The third partition is gone from the new topic: its position was reset too, so one added later starts at 0.
        assertThat(tables.open(spec.tableLocation()).positions()).containsEntry(new PartitionKey("re-run", 2), 0L)
                .containsEntry(new PartitionKey("re-run", 0), 150L).containsEntry(new PartitionKey("re-run", 1), 150L);
    }

    @Test
    void anIdleStreamWakesForARecreatedTopicThatEndsBeforeItsPositions() throws Exception {
        topics.createTopic("re-idle", 3);
        String oldId = topicId("re-idle");
        PipelineSpec spec = stream("re_idle", "re-idle", topics.endOffsets("re-idle"));
        StreamPipeline pipeline = watched(spec);
        List<String> want = new ArrayList<>(produce("re-idle", 3, 200, "old"));
        awaitSettledRows(spec, want.size());
        await().atMost(Duration.ofSeconds(30)).until(pipeline::idle);

        // 100 records per partition, while the table stands at 200 in each: the old code never woke up for them.
        recreate("re-idle", 3);
        String newId = topicId("re-idle");
        want.addAll(produce("re-idle", 3, 100, "new"));

        assertThat(awaitSettledRows(spec, want.size())).containsExactlyInAnyOrderElementsOf(want);
        assertRecreated(pipeline, spec, "re-idle", oldId, newId);
    }

    /**
     * The old topic's end offsets say nothing of the new one: a partition the new topic lacks (reset to 0) kept the
     * old end as its lag, so the stream reported lag for a partition that does not exist and, once idle, was STALLED
     * for ever ("Kafka has not answered"). Also what a broker replaced by a new cluster with fewer partitions does.
     */
    @Test
    void partitionsTheRecreatedTopicLacksKeepNoLagOfTheOldTopic() throws Exception {
        topics.createTopic("re-fewer", 3);
        PipelineSpec spec = stream("re_fewer", "re-fewer", topics.endOffsets("re-fewer"));
        StreamPipeline pipeline = watched(spec);
        List<String> want = new ArrayList<>(produce("re-fewer", 3, 30, "old"));
        awaitSettledRows(spec, want.size());

        recreate("re-fewer", 2);
        want.addAll(produce("re-fewer", 2, 10, "new"));
        assertThat(awaitSettledRows(spec, want.size())).containsExactlyInAnyOrderElementsOf(want);
        await().atMost(Duration.ofSeconds(30)).until(pipeline::idle);
        // Longer than the stall window (3 s): an idle stream with every record read is neither lagging nor stalled.
        await().during(Duration.ofSeconds(5)).atMost(Duration.ofSeconds(15)).untilAsserted(() -> {
            IngestionStatus s = pipeline.status();
            assertThat(s.state()).as("%s", s.stateMessage()).isEqualTo(IngestionStatus.State.RUNNING);
            assertThat(s.partitions()).allSatisfy(p -> assertThat(p.lag()).as("%s", p).isZero());
        });
    }

    /**
     * A topic a pattern matched deleted (and not created again) while records of it waited unread: they are gone with
     * it, and so must its last end offsets be. Before, its old end stayed the partition's lag for ever and the idle
     * stream was STALLED ("Kafka has not answered") until the server restarted.
     */
    @Test
    void aDeletedTopicsUnreadRecordsLeaveNoLagBehind() throws Exception {
        topics.createTopic("gone-a", 1);
        PipelineSpec spec = KafkaStreamFixture.create(tables, "gone", new Subscription.Pattern("gone-.*"),
                new SchemaSource.Plain(), new SchemaSource.Plain(), topics.endOffsets("gone-a"),
                Map.of("gone-a", topicId("gone-a")), Map.of("bootstrap.servers", kafka.bootstrapServers()));
        // Ten records a batch: 3,000 records take hundreds of commits, so many wait when the topic goes.
        PipelineSettings slow = new PipelineSettings(Duration.ofMillis(300), 10, 64L << 20, Duration.ofSeconds(1),
                Duration.ofSeconds(1));
        StreamPipeline pipeline = KafkaStreamFixture.pipeline(tables, spec, slow, new SimpleMeterRegistry());
        running.add(pipeline);
        IdleWatch watch = new IdleWatch(slow);
        watches.add(watch);
        watch.watch(pipeline);
        produce("gone-a", 1, 3000, "v");
        await().atMost(Duration.ofSeconds(60)).until(() -> pipeline.status().partitions().stream()
                .anyMatch(p -> p.lag() > 100 && p.committedOffset() > 0));
        admin.deleteTopics(List.of("gone-a")).all().get();

        await().atMost(Duration.ofSeconds(60)).until(pipeline::idle);
        await().during(Duration.ofSeconds(5)).atMost(Duration.ofSeconds(15)).untilAsserted(() -> {
            IngestionStatus s = pipeline.status();
            assertThat(s.state()).as("%s", s.stateMessage()).isEqualTo(IngestionStatus.State.RUNNING);
            assertThat(s.partitions()).allSatisfy(p -> assertThat(p.lag()).as("%s", p).isZero());
        });
    }

    /**
     * The broker lost records the table holds (an unclean leader election, a truncated or restored log): the topic id
     * is the same, but the partition's log ends before the table's position, and the records Kafka writes at the
     * offsets below it cannot be told from the ones the table has. Before, the stream stayed RUNNING with lag 0 and
     * dropped them without a word. Both a running and an idle stream say so.
     */
    @Test
    void aLogEndingBeforeTheTablesPositionUnderTheSameTopicIdIsReportedNotSilentlySkipped() throws Exception {
        topics.createTopic("trunc-run", 1);
        topics.createTopic("trunc-idle", 1);
        // The table stands at 20 on the topics as they are now (their ids), while their logs hold nothing yet.
        PipelineSpec running = KafkaStreamFixture.create(tables, "trunc_run", new Subscription.Topics(List.of("trunc-run")),
                new SchemaSource.Plain(), new SchemaSource.Plain(), Map.of(new PartitionKey("trunc-run", 0), 20L),
                Map.of("trunc-run", topicId("trunc-run")), Map.of("bootstrap.servers", kafka.bootstrapServers()));
        PipelineSpec idle = KafkaStreamFixture.create(tables, "trunc_idle", new Subscription.Topics(List.of("trunc-idle")),
                new SchemaSource.Plain(), new SchemaSource.Plain(), Map.of(new PartitionKey("trunc-idle", 0), 20L),
                Map.of("trunc-idle", topicId("trunc-idle")), Map.of("bootstrap.servers", kafka.bootstrapServers()));
        List<StreamPipeline> pipelines = List.of(start(running, ACTIVE), watched(idle));
        produce("trunc-run", 1, 5, "after");
        produce("trunc-idle", 1, 5, "after");

        for (StreamPipeline pipeline : pipelines) {
            String topic = pipeline == pipelines.get(0) ? "trunc-run" : "trunc-idle";
            await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
                IngestionStatus s = pipeline.status();
                assertThat(s.state()).isEqualTo(IngestionStatus.State.FAILED);
                assertThat(s.stateMessage()).contains(topic + "/0 ends at offset 5, before the table's position 20",
                        "topic id is unchanged", "are not ingested");
            });
        }
        assertThat(KafkaTestSupport.rows(tables, running.tableLocation())).isEmpty();

        // Once the log passes the table's position the stream goes on from it, and says nothing more.
        List<String> beyond = produce("trunc-run", 1, 20, "later").subList(15, 20);
        assertThat(awaitSettledRows(running, 5)).containsExactlyInAnyOrderElementsOf(beyond);
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            assertThat(pipelines.get(0).status().state()).isEqualTo(IngestionStatus.State.RUNNING);
            assertThat(pipelines.get(0).status().stateMessage()).isNull();
        });
    }

    @Test
    void positionsWithoutATopicIdBeyondTheTopicsEndAreTakenForARecreatedTopic() throws Exception {
        // A table written before topic ids were recorded, whose topic was recreated meanwhile: it stands at 500.
        topics.createTopic("re-old", 1);
        PipelineSpec spec = stream("re_old", "re-old", Map.of(new PartitionKey("re-old", 0), 500L));
        StreamPipeline pipeline = start(spec, ACTIVE);
        List<String> want = produce("re-old", 1, 300, "new");

        assertThat(awaitSettledRows(spec, want.size())).containsExactlyInAnyOrderElementsOf(want);
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(pipeline.status().topicRecreations())
                .extracting(IngestionStatus.TopicRecreation::topic, IngestionStatus.TopicRecreation::previousTopicId,
                        IngestionStatus.TopicRecreation::topicId)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("re-old", null, topicId("re-old"))));
        assertThat(tables.open(spec.tableLocation()).positionDetails().get(new PartitionKey("re-old", 0)).topicId())
                .contains(topicId("re-old"));
    }

    /**
     * The gap ids at create close: a topic recreated between the create call and the stream's first commit, and grown
     * past the positions read at create. Without an id in those positions nothing tells the new topic from the old one
     * (its end is beyond them), and its first records up to the old end offsets would be skipped.
     */
    @Test
    void aTopicRecreatedBeforeTheFirstCommitIsToldApartByTheIdReadAtCreate() throws Exception {
        topics.createTopic("re-early", 2);
        produce("re-early", 2, 50, "old");
        String oldId = topicId("re-early");
        // What the registry does at create: positions and ids in one request.
        StartPositions.Captured start = StartPositions.captureWithTopicIds(
                Map.of("bootstrap.servers", kafka.bootstrapServers()), new Subscription.Topics(List.of("re-early")),
                Duration.ofSeconds(10));
        assertThat(start.positions()).containsOnly(Map.entry(new PartitionKey("re-early", 0), 50L),
                Map.entry(new PartitionKey("re-early", 1), 50L));
        assertThat(start.topicIds()).containsOnly(Map.entry("re-early", oldId));
        PipelineSpec spec = KafkaStreamFixture.create(tables, "re_early", new Subscription.Topics(List.of("re-early")),
                new SchemaSource.Plain(), new SchemaSource.Plain(), start.positions(), start.topicIds(),
                Map.of("bootstrap.servers", kafka.bootstrapServers()));

        recreate("re-early", 2);
        String newId = topicId("re-early");
        List<String> want = produce("re-early", 2, 80, "new");
        StreamPipeline pipeline = start(spec, ACTIVE);

        assertThat(awaitSettledRows(spec, want.size())).containsExactlyInAnyOrderElementsOf(want);
        assertRecreated(pipeline, spec, "re-early", oldId, newId);
    }

    @Test
    void theFirstCommitAdoptsTheTopicIdOfPositionsWithoutOne() throws Exception {
        topics.createTopic("re-adopt", 2);
        produce("re-adopt", 2, 5, "early");
        PipelineSpec spec = stream("re_adopt", "re-adopt", topics.endOffsets("re-adopt"));
        StreamPipeline pipeline = start(spec, ACTIVE);
        // Only partition 0 gets records; partition 1's position adopts the id in the same commit.
        List<String> want = new ArrayList<>();
        for (int i = 5; i < 25; i++) {
            topics.send("re-adopt", 0, null, utf8("v-0-" + i));
            want.add("v-0-" + i + "@0/" + i);
        }
        topics.flush();

        assertThat(awaitSettledRows(spec, want.size())).containsExactlyInAnyOrderElementsOf(want);
        Map<PartitionKey, PartitionPosition> positions = tables.open(spec.tableLocation()).positionDetails();
        assertThat(positions.values()).extracting(PartitionPosition::topicId)
                .containsOnly(Optional.of(topicId("re-adopt")));
        assertThat(positions.get(new PartitionKey("re-adopt", 1)).next()).isEqualTo(5);
        assertThat(pipeline.status().topicRecreations()).isEmpty();
    }

    @Test
    void aDeletedTopicIsAwaitedNotFailedAndItsRecreationIngestedFromItsBeginning() throws Exception {
        topics.createTopic("re-gone", 2);
        PipelineSpec spec = stream("re_gone", "re-gone", topics.endOffsets("re-gone"));
        StreamPipeline pipeline = start(spec, ACTIVE);
        List<String> want = new ArrayList<>(produce("re-gone", 2, 30, "old"));
        awaitSettledRows(spec, want.size());

        admin.deleteTopics(List.of("re-gone")).all().get();
        // Before: RUNNING without a word for 15 s at a time, then FAILED with "cannot reach Kafka", over and over.
        await().atMost(Duration.ofSeconds(30)).until(() -> String.valueOf(pipeline.status().stateMessage())
                .contains("topic 're-gone' does not exist on the cluster"));
        await("waits for its topic, RUNNING").during(Duration.ofSeconds(20)).atMost(Duration.ofSeconds(25))
                .until(() -> pipeline.status().state() == IngestionStatus.State.RUNNING
                        && String.valueOf(pipeline.status().stateMessage()).contains("'re-gone' does not exist"));

        topics.createTopic("re-gone", 2);
        want.addAll(produce("re-gone", 2, 25, "new"));
        assertThat(awaitSettledRows(spec, want.size())).containsExactlyInAnyOrderElementsOf(want);
        await().atMost(Duration.ofSeconds(10)).until(() -> pipeline.status().stateMessage() == null);
    }

    private void assertRecreated(StreamPipeline pipeline, PipelineSpec spec, String topic, String oldId, String newId) {
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            IngestionStatus s = pipeline.status();
            assertThat(s.state()).isEqualTo(IngestionStatus.State.RUNNING);
            assertThat(s.topicRecreations()).hasSize(1);
            IngestionStatus.TopicRecreation r = s.topicRecreations().get(0);
            assertThat(r.topic()).isEqualTo(topic);
            assertThat(r.previousTopicId()).isEqualTo(oldId);
            assertThat(r.topicId()).isEqualTo(newId);
            assertThat(r.message()).contains("topic " + topic + " was deleted and created again",
                    oldId + " -> " + newId, "ingested from its beginning");
        });
        // The table says so too, for a process that reads the status from the log (stream-api on AWS, a restart).
        assertThat(IngestionStatus.TopicRecreation.of(tables.open(spec.tableLocation()).positionDetails()))
                .extracting(IngestionStatus.TopicRecreation::topicId).containsExactly(newId);
    }

    private PipelineSpec stream(String name, String topic, Map<PartitionKey, Long> start) {
        return KafkaStreamFixture.create(tables, name, new Subscription.Topics(List.of(topic)), new SchemaSource.Plain(),
                new SchemaSource.Plain(), start, Map.of("bootstrap.servers", kafka.bootstrapServers()));
    }

    private StreamPipeline watched(PipelineSpec spec) {
        StreamPipeline pipeline = KafkaStreamFixture.pipeline(tables, spec, IDLING, new SimpleMeterRegistry());
        running.add(pipeline);
        IdleWatch watch = new IdleWatch(IDLING);
        watches.add(watch);
        watch.watch(pipeline);
        return pipeline;
    }

    /** Produces {@code perPartition} records to each partition; returns the rows they must become. */
    private static List<String> produce(String topic, int partitions, int perPartition, String tag) {
        List<String> rows = new ArrayList<>();
        for (int i = 0; i < perPartition; i++) {
            for (int p = 0; p < partitions; p++) {
                topics.send(topic, p, null, utf8(tag + "-" + p + "-" + i));
            }
        }
        topics.flush();
        Map<PartitionKey, Long> ends = topics.endOffsets(topic);
        for (int p = 0; p < partitions; p++) {
            long first = ends.get(new PartitionKey(topic, p)) - perPartition;
            for (int i = 0; i < perPartition; i++) {
                rows.add(tag + "-" + p + "-" + i + "@" + p + "/" + (first + i));
            }
        }
        return rows;
    }

    /** "value@partition/offset" of every row, by Kernel's scan, once it has at least {@code count} rows. */
    private static List<String> awaitSettledRows(PipelineSpec spec, int count) {
        await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(200))
                .until(() -> KafkaTestSupport.rows(tables, spec.tableLocation()).size() >= count);
        // Give a wrong extra commit the chance to show: no row may land for a while.
        int reached = KafkaTestSupport.rows(tables, spec.tableLocation()).size();
        await("no further commit after " + reached + " rows").during(Duration.ofMillis(1500))
                .atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(200))
                .until(() -> KafkaTestSupport.rows(tables, spec.tableLocation()).size() == reached);
        return KafkaTestSupport.rows(tables, spec.tableLocation()).stream()
                .map(r -> r.get("value") + "@" + r.get("kafka_partition") + "/" + r.get("kafka_offset")).toList();
    }

    private static String topicId(String topic) throws Exception {
        return admin.describeTopics(List.of(topic)).topicNameValues().get(topic).get().topicId().toString();
    }

    /** Deletes the topic and creates it again under the same name once the deletion has gone through. */
    private static void recreate(String topic, int partitions) throws Exception {
        admin.deleteTopics(List.of(topic)).all().get();
        long deadline = System.currentTimeMillis() + 60_000;
        while (true) {
            try {
                admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1))).all().get();
                break;
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof TopicExistsException) || System.currentTimeMillis() > deadline) {
                    throw e;
                }
                Thread.sleep(200);
            }
        }
        topics.endOffsets(topic);
    }
}
