package io.tributary.server;

import static io.tributary.testing.Api.ROOT;
import static io.tributary.testing.Api.as;
import static io.tributary.testing.Api.unique;
import static io.tributary.testing.StreamRequests.valid;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.equalTo;

import io.quarkus.scheduler.Scheduler;
import io.quarkus.test.junit.QuarkusTest;
import io.tributary.delta.Tables;
import io.tributary.maintenance.TableMaintenance;
import io.tributary.testing.KafkaTestSupport;
import jakarta.inject.Inject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.awaitility.Awaitility;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The all-in-one server maintains its ingestion tables: the maintenance job is scheduled, and a run compacts the small
 * files the server's own pipeline committed and vacuums an old orphaned data file, after which the pipeline goes on
 * exactly once. (The run is called directly: the schedule's 5 min default would make the test wait.)
 */
@Tag("quarkus")
@QuarkusTest
class MaintenanceScheduleTest {
    private static final String STREAMS = "/api/2.0/feature-engineering/streams";

    @Inject
    Tables tables;
    @Inject
    Scheduler scheduler;
    @Inject
    MaintenanceRuns runs;
    @ConfigProperty(name = "kafka.bootstrap.servers")
    String bootstrap;

    @Test
    void theServerCompactsAndVacuumsItsIngestionTables() throws Exception {
        assertThat(scheduler.getScheduledJob(MaintenanceSchedule.JOB)).as("the maintenance job").isNotNull();
        // The job's own run (every 5 minutes from start-up) must not compact the three files before they are
        // counted: in a long suite its first run fell inside this test.
        scheduler.pause(MaintenanceSchedule.JOB);
        try {
            compactsAndVacuums();
        } finally {
            scheduler.resume(MaintenanceSchedule.JOB);
        }
    }

    private void compactsAndVacuums() throws Exception {
        String schema = unique("mt");
        String connection = unique("kafka");
        as(ROOT).body("{\"name\": \"" + connection + "\", \"connection_type\": \"KAFKA\", \"options\": "
                + "{\"bootstrap_servers\": \"" + bootstrap + "\"}}").post("/api/2.0/connections").then().statusCode(200);
        String topic = unique("mt");
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get();
        }
        String name = "main." + schema + ".events";
        as(ROOT).body(valid(name, connection, topic).toString()).post(STREAMS).then().statusCode(200);
        String location = tables.defaultLocation("main", schema, "events_ingestion");

        try (var producer = new KafkaProducer<>(Map.<String, Object>of("bootstrap.servers", bootstrap),
                new StringSerializer(), new StringSerializer())) {
            // Three rounds, each awaited: three commits, three small files.
            for (int round = 0; round < 3; round++) {
                for (int i = 0; i < 2; i++) {
                    producer.send(new ProducerRecord<>(topic, 0, "k", "{\"id\": \"r" + round + i + "\"}")).get();
                }
                int expected = 2 * (round + 1);
                Awaitility.await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> as(ROOT).get(STREAMS + "/" + name)
                        .then().statusCode(200).body("ingestion_status.rows_ingested", equalTo(expected)));
            }
            assertThat(tables.dataFiles(location)).hasSize(3);
            Path tableDir = Path.of(location.replaceFirst("^file:", ""));
            Path orphan = Files.writeString(tableDir.resolve("part-00000-killed-writer-c000.snappy.parquet"), "orphan");
            Files.setLastModifiedTime(orphan, FileTime.from(Instant.now().minus(Duration.ofDays(8))));

            TableMaintenance.Summary summary = runs.runAll();

            assertThat(summary.tablesCompacted()).isPositive();
            assertThat(summary.filesVacuumed()).isPositive();
            assertThat(tables.dataFiles(location)).hasSize(1);
            assertThat(orphan).doesNotExist();
            assertThat(offsets(location)).containsExactly(0L, 1L, 2L, 3L, 4L, 5L);

            producer.send(new ProducerRecord<>(topic, 0, "k", "{\"id\": \"after\"}")).get();
            Awaitility.await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> as(ROOT).get(STREAMS + "/" + name)
                    .then().statusCode(200).body("ingestion_status.partitions[0].committed_offset", equalTo(7)));
            assertThat(offsets(location)).containsExactly(0L, 1L, 2L, 3L, 4L, 5L, 6L);
        }
        as(ROOT).delete(STREAMS + "/" + name).then().statusCode(200);
    }

    private List<Long> offsets(String location) {
        List<Long> out = new ArrayList<>();
        for (Map<String, Object> row : KafkaTestSupport.rows(tables, location)) {
            out.add((Long) row.get("kafka_offset"));
        }
        out.sort(null);
        return out;
    }
}
