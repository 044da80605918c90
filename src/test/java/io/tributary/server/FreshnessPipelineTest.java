package io.tributary.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tributary.delta.PartitionKey;
import io.tributary.delta.PartitionPosition;
import io.tributary.ingest.IngestionStatus;
import io.tributary.ingest.IngestionStatus.PartitionStatus;
import io.tributary.ingest.PipelineSpec;
import io.tributary.ingest.Subscription;
import io.tributary.schema.SchemaSource;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/**
 * valid_through and each partition's last commit, checked against records produced with explicit timestamps: from
 * the pipeline's live status, from the table's log alone (what stream-api on AWS and a restarted server read), and
 * as metrics.
 */
class FreshnessPipelineTest extends KafkaPipelineHarness {
    private static final String TOPIC = "freshness";
    /** Far from now, so a wall-clock time taken for a record's timestamp cannot pass the check. */
    private static final Instant T = Instant.parse("2026-03-01T12:00:00Z");

    @Test
    void validThroughIsTheOldestPartitionsNewestCommittedTimestampAndSurvivesARestart() throws Exception {
        topics.createTopic(TOPIC, 2);
        PipelineSpec spec = stream("fresh", new Subscription.Topics(List.of(TOPIC)), new SchemaSource.Plain(),
                topics.endOffsets(TOPIC));
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        StreamPipeline pipeline = KafkaStreamFixture.pipeline(tables, spec, FAST, meters);
        running.add(pipeline);
        pipeline.start();
        PartitionKey p0 = new PartitionKey(TOPIC, 0);
        PartitionKey p1 = new PartitionKey(TOPIC, 1);
        try (KafkaProducer<String, String> producer = producer()) {
            // Out of timestamp order within the partition: the newest counts, not the last.
            send(producer, 0, T.plusSeconds(5), T.plusSeconds(30), T.plusSeconds(10));
            awaitCommitted(pipeline, spec, p0, 3);
            IngestionStatus onlyP0 = pipeline.status();
            assertThat(onlyP0.validThrough()).as("partition 1 has no committed record yet").isNull();
            assertThat(partition(onlyP0, 0).validThrough()).isEqualTo(T.plusSeconds(30));
            assertThat(partition(onlyP0, 0).lastCommitAt()).isNotNull();
            assertThat(partition(onlyP0, 1).lastCommitAt()).isNull();
            assertThat(table(spec).get(p0).maxTimestamp()).contains(T.plusSeconds(30));
            assertThat(meters.get("tributary.ingest.valid.through").gauge().value()).isNaN();

            send(producer, 1, T.plusSeconds(20), T.plusSeconds(12));
            awaitCommitted(pipeline, spec, p1, 2);
            IngestionStatus both = pipeline.status();
            assertThat(both.validThrough()).as("the older of 30 s (p0) and 20 s (p1)").isEqualTo(T.plusSeconds(20));
            assertThat(meters.get("tributary.ingest.valid.through").gauge().value())
                    .isEqualTo(T.plusSeconds(20).getEpochSecond());
            Instant p0Commit = partition(both, 0).lastCommitAt();
            Instant p1Commit = partition(both, 1).lastCommitAt();
            assertThat(p1Commit).isAfter(p0Commit);
            assertThat(meters.get("tributary.ingest.last.commit").tag("partition", "1").gauge().value())
                    .isEqualTo(p1Commit.toEpochMilli() / 1000.0);
            assertSameAsTheLog(spec, both);

            // p1 moves past p0: valid_through follows p0; only p1's last commit moves.
            send(producer, 1, T.plusSeconds(40));
            awaitCommitted(pipeline, spec, p1, 3);
            IngestionStatus moved = pipeline.status();
            assertThat(moved.validThrough()).isEqualTo(T.plusSeconds(30));
            assertThat(partition(moved, 1).lastCommitAt()).isAfter(p1Commit);
            assertThat(partition(moved, 0).lastCommitAt()).isEqualTo(p0Commit);
            assertThat(partition(moved, 1).validThrough()).isEqualTo(T.plusSeconds(40));
            assertSameAsTheLog(spec, moved);
        }

        // Another pipeline (a restarted server) reads it all back from the table.
        pipeline.stop();
        StreamPipeline restarted = KafkaStreamFixture.pipeline(tables, spec, FAST, new SimpleMeterRegistry());
        restarted.loadIdlePositions();
        IngestionStatus after = restarted.status();
        assertThat(after.validThrough()).isEqualTo(T.plusSeconds(30));
        assertThat(partition(after, 1).validThrough()).isEqualTo(T.plusSeconds(40));
        assertThat(partition(after, 1).lastCommitAt()).isNotNull();
        restarted.stop();
    }

    /** The status stream-api builds from the log alone (registry.service.StreamStatuses) has the same freshness. */
    private static void assertSameAsTheLog(PipelineSpec spec, IngestionStatus live) {
        List<PartitionStatus> fromLog = new ArrayList<>();
        table(spec).forEach((k, p) -> fromLog.add(PartitionStatus.of(k, p, -1)));
        IngestionStatus logged = new IngestionStatus(IngestionStatus.State.RUNNING, null, null, 0, 0, 0, fromLog,
                List.of());
        assertThat(logged.validThrough()).isEqualTo(live.validThrough());
        for (PartitionStatus p : fromLog) {
            PartitionStatus l = partition(live, p.partition());
            assertThat(p.validThrough()).isEqualTo(l.validThrough());
            // The pipeline takes the commit's time after it lands, the domain before: the same commit either way.
            assertThat(Duration.between(p.lastCommitAt(), l.lastCommitAt()).abs()).isLessThan(Duration.ofSeconds(5));
        }
    }

    private static Map<PartitionKey, PartitionPosition> table(PipelineSpec spec) {
        return tables.open(spec.tableLocation()).positionDetails();
    }

    /**
     * Until the table and the pipeline's status both have the partition at {@code next}: the status takes a commit in
     * just after the commit lands, so reading it the moment the table shows the commit could see the one before.
     */
    private static void awaitCommitted(StreamPipeline pipeline, PipelineSpec spec, PartitionKey p, long next) {
        await().atMost(Duration.ofSeconds(60)).until(() -> table(spec).get(p) != null && table(spec).get(p).next() == next
                && pipeline.status().partitions().stream().anyMatch(s -> s.topic().equals(p.topic())
                        && s.partition() == p.partition() && s.committedOffset() == next));
    }

    private static PartitionStatus partition(IngestionStatus status, int partition) {
        return status.partitions().stream().filter(p -> p.partition() == partition).findFirst().orElseThrow();
    }

    private static KafkaProducer<String, String> producer() {
        return new KafkaProducer<>(Map.<String, Object>of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                kafka.bootstrapServers()), new StringSerializer(), new StringSerializer());
    }

    private static void send(KafkaProducer<String, String> producer, int partition, Instant... timestamps)
            throws Exception {
        for (Instant t : timestamps) {
            producer.send(new ProducerRecord<>(TOPIC, partition, t.toEpochMilli(), null, "at " + t)).get();
        }
    }
}
