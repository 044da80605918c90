package io.tributary.server;

import static io.tributary.server.KafkaPipelineHarness.expected;
import static io.tributary.server.KafkaPipelineHarness.utf8;
import static io.tributary.testing.KafkaTestSupport.coordinates;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tributary.delta.PartitionKey;
import io.tributary.ingest.IngestionStatus;
import io.tributary.ingest.PipelineSpec;
import io.tributary.ingest.Subscription;
import io.tributary.server.local.EmbeddedKafka;
import io.tributary.schema.SchemaSource;
import io.tributary.testing.KafkaTestSupport;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Idle streams hold no consumer: pipelines watched by {@link IdleWatch} against a real broker, every table read back
 * with Kernel's scan.
 */
class IdleWatchTest extends KafkaPipelineHarness {

    /** Idles after 1 s without records; the watch looks every 300 ms. */
    static final PipelineSettings IDLING = new PipelineSettings(Duration.ofMillis(300), 100_000, 64L << 20,
            Duration.ofSeconds(1), Duration.ofSeconds(1));

    final List<IdleWatch> watches = new ArrayList<>();

    /** Before the harness stops the pipelines, so no watch restarts one. */
    @AfterEach
    void closeWatches() {
        watches.forEach(IdleWatch::close);
    }

    private StreamPipeline watched(PipelineSpec spec) {
        StreamPipeline pipeline = KafkaStreamFixture.pipeline(tables, spec, IDLING, new SimpleMeterRegistry());
        running.add(pipeline);
        IdleWatch watch = new IdleWatch(IDLING);
        watches.add(watch);
        watch.watch(pipeline);
        return pipeline;
    }

    private static boolean consumerThreadAlive(PipelineSpec spec) {
        return Thread.getAllStackTraces().keySet().stream()
                .anyMatch(t -> t.isAlive() && t.getName().equals("tributary-consume-" + spec.streamId()));
    }

    private static void produce(String topic, int partitions, int from, int to) {
        for (int i = from; i < to; i++) {
            for (int p = 0; p < partitions; p++) {
                topics.send(topic, p, utf8("k" + i), utf8("v" + i));
            }
        }
        topics.flush();
    }

    @Test
    void aQuietStreamHoldsNoConsumerAndWakesWhenRecordsArrive() {
        topics.createTopic("idle-a", 2);
        produce("idle-a", 2, 0, 3);
        PipelineSpec spec = KafkaStreamFixture.create(tables, "idle_a", new Subscription.Topics(List.of("idle-a")),
                new SchemaSource.Plain(), new SchemaSource.Plain(), topics.endOffsets("idle-a"),
                Map.of("bootstrap.servers", kafka.bootstrapServers()));
        StreamPipeline pipeline = watched(spec);

        // Nothing waits past the start position: the watch reports the lag, but no consumer is opened.
        await().atMost(Duration.ofSeconds(10)).until(() -> pipeline.status().partitions().size() == 2);
        assertThat(pipeline.status().partitions()).allSatisfy(p -> assertThat(p.lag()).isZero());
        assertThat(pipeline.activations()).isZero();
        assertThat(consumerThreadAlive(spec)).isFalse();

        produce("idle-a", 2, 3, 13);
        assertThat(coordinates(awaitRows(spec, 20))).containsExactlyElementsOf(expected("idle-a", 2, 3, 13));
        assertThat(pipeline.activations()).isEqualTo(1);

        // A second, later stretch of records wakes it again; nothing is lost or doubled across the idle time.
        await().atMost(Duration.ofSeconds(10)).until(() -> pipeline.idle() && !consumerThreadAlive(spec));
        produce("idle-a", 2, 13, 18);
        assertThat(coordinates(awaitRows(spec, 30))).containsExactlyElementsOf(expected("idle-a", 2, 3, 18));
        assertThat(pipeline.activations()).isEqualTo(2);
        assertThat(pipeline.status().state()).isEqualTo(IngestionStatus.State.RUNNING);
    }

    @Test
    void aNamedTopicCreatedAfterTheStreamIsReadWithoutWaitingForATopicRefresh() {
        // A refresh 10 minutes away: the stream must find its topic by the watch's own look for missing topics.
        PipelineSettings slowRefresh = new PipelineSettings(IDLING.triggerInterval(), IDLING.maxBatchRecords(),
                IDLING.maxBatchBytes(), Duration.ofMinutes(10), IDLING.idleTimeout());
        PipelineSpec spec = KafkaStreamFixture.create(tables, "idle_later", new Subscription.Topics(List.of("idle-later")),
                new SchemaSource.Plain(), new SchemaSource.Plain(), Map.of(),
                Map.of("bootstrap.servers", kafka.bootstrapServers()));
        StreamPipeline pipeline = KafkaStreamFixture.pipeline(tables, spec, slowRefresh, new SimpleMeterRegistry());
        running.add(pipeline);
        IdleWatch watch = new IdleWatch(slowRefresh);
        watches.add(watch);
        watch.watch(pipeline);
        await().atMost(Duration.ofSeconds(10)).until(() -> pipeline.idlePositions() != null);

        topics.createTopic("idle-later", 2);
        produce("idle-later", 2, 0, 3);
        await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(100))
                .until(() -> KafkaTestSupport.rows(tables, spec.tableLocation()).size() >= 6);
        assertThat(coordinates(KafkaTestSupport.rows(tables, spec.tableLocation())))
                .containsExactlyElementsOf(expected("idle-later", 2, 0, 3));
    }

    @Test
    void aTopicThatStartsToMatchAnIdleStreamsPatternWakesItFromItsBeginning() {
        topics.createTopic("idlepat-a", 1);
        PipelineSpec spec = KafkaStreamFixture.create(tables, "idle_pattern", new Subscription.Pattern("idlepat-.*"),
                new SchemaSource.Plain(), new SchemaSource.Plain(), topics.endOffsets("idlepat-a"),
                Map.of("bootstrap.servers", kafka.bootstrapServers()));
        StreamPipeline pipeline = watched(spec);
        await().atMost(Duration.ofSeconds(10)).until(() -> pipeline.status().partitions().size() == 1);
        assertThat(pipeline.activations()).isZero();

        // Created after the watch matched the pattern once: found at the next topic refresh (1 s here).
        topics.createTopic("idlepat-b", 2);
        produce("idlepat-b", 2, 0, 4);
        assertThat(coordinates(awaitRows(spec, 8))).containsExactlyElementsOf(expected("idlepat-b", 2, 0, 4));
        assertThat(pipeline.activations()).isEqualTo(1);
    }

    @Test
    void transactionMarkersDoNotKeepWakingAnIdleStream() throws Exception {
        // The transaction first, the stream after it (reading from offset 0): the in-process broker's transaction
        // coordinator now and then refuses a first transaction (InvalidTxnStateException), and a retry must go to a
        // fresh topic, since an aborted attempt would have taken offsets.
        String topic = null;
        for (int attempt = 1; topic == null; attempt++) {
            String t = "idle-tx-" + attempt;
            topics.createTopic(t, 1);
            try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(Map.of(
                    "bootstrap.servers", kafka.bootstrapServers(), "transactional.id", "idle-tx-producer-" + attempt),
                    new ByteArraySerializer(), new ByteArraySerializer())) {
                producer.initTransactions();
                producer.beginTransaction();
                for (int i = 0; i < 5; i++) {
                    producer.send(new ProducerRecord<>(t, 0, utf8("k" + i), utf8("v" + i)));
                }
                producer.commitTransaction();
                topic = t;
            } catch (org.apache.kafka.common.KafkaException e) {
                if (attempt == 3) {
                    throw e;
                }
            }
        }
        PipelineSpec spec = KafkaStreamFixture.create(tables, "idle_tx", new Subscription.Topics(List.of(topic)),
                new SchemaSource.Plain(), new SchemaSource.Plain(), Map.of(new PartitionKey(topic, 0), 0L),
                Map.of("bootstrap.servers", kafka.bootstrapServers()));
        StreamPipeline pipeline = watched(spec);
        // Offsets 0-4 are records, 5 is the commit marker: the end offset is 6, the table's position 5.
        assertThat(coordinates(awaitRows(spec, 5))).containsExactlyElementsOf(expected(topic, 1, 0, 5));
        await().atMost(Duration.ofSeconds(10)).until(pipeline::idle);
        int activations = pipeline.activations();
        await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(10))
                .until(() -> pipeline.activations() == activations);
        assertThat(pipeline.activations()).as("woken again by the marker alone").isEqualTo(activations);
        assertThat(KafkaTestSupport.rows(tables, spec.tableLocation())).hasSize(5);
    }

    @Test
    void anIdleStreamWhoseClusterIsUnreachableIsFailedAndRecovers() throws Exception {
        int port;
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        String bootstrap = "127.0.0.1:" + port;
        PipelineSpec spec = KafkaStreamFixture.create(tables, "idle_down", new Subscription.Topics(List.of("down")),
                new SchemaSource.Plain(), new SchemaSource.Plain(), Map.of(new PartitionKey("down", 0), 0L),
                Map.of("bootstrap.servers", bootstrap, "default.api.timeout.ms", "2000",
                        "request.timeout.ms", "1000"));
        StreamPipeline pipeline = watched(spec);
        await().atMost(Duration.ofSeconds(30))
                .until(() -> pipeline.status().state() == IngestionStatus.State.FAILED);
        assertThat(pipeline.status().stateMessage()).contains(bootstrap);
        assertThat(pipeline.activations()).isZero();

        try (EmbeddedKafka late = EmbeddedKafka.start(dir.resolve("kafka-late"), port, Map.of());
                KafkaTestSupport lateTopics = new KafkaTestSupport(late.bootstrapServers())) {
            lateTopics.createTopic("down", 1);
            lateTopics.send("down", 0, utf8("k"), utf8("v"));
            lateTopics.flush();
            assertThat(coordinates(awaitRows(spec, 1))).containsExactly("down/0/0");
            assertThat(pipeline.status().state()).isEqualTo(IngestionStatus.State.RUNNING);
            pipeline.stop();
        }
    }
}
