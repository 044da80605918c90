package io.tributary.lambda.ingest;

import static io.tributary.lambda.ingest.IngestFixtures.Rec;
import static org.assertj.core.api.Assertions.assertThat;

import io.quarkus.test.junit.QuarkusTest;
import io.tributary.delta.PartitionKey;
import io.tributary.delta.TableRows;
import io.tributary.delta.Tables;
import io.tributary.ingest.PipelineSpec;
import io.tributary.registry.directory.StreamDirectory;
import io.tributary.registry.service.ConnectionService;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The ingest function's core against the embedded registry and a real local Delta table, read back with Delta Kernel's
 * scan ({@link Tables#read}). The handler only adds the alias lookup (StreamAlias) in front of it.
 */
@Tag("quarkus")
@QuarkusTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class StreamIngestionTest {

    @Inject
    StreamIngestion ingestion;
    @Inject
    StreamDirectory directory;
    @Inject
    ConnectionService connections;
    @Inject
    Tables tables;
    @org.eclipse.microprofile.config.inject.ConfigProperty(name = "kafka.bootstrap.servers")
    String bootstrap;

    @BeforeAll
    void connection() throws Throwable {
        IngestFixtures.connection(connections, "ingest-test-kafka", bootstrap);
    }

    @Test
    void anMskBatchLandsFromTheRecordedPositionsAndNewPartitionsFromTheirStart() throws Throwable {
        // Created when tx-0 ended at 5 and tx-1 at 0; tx-2 did not exist yet (no recorded position).
        PipelineSpec spec = IngestFixtures.stream(directory, tables, "ingest-test-kafka", "msk", "tx", "{\"subscribe\":\"tx\"}",
                Map.of(new PartitionKey("tx", 0), 5L, new PartitionKey("tx", 1), 0L));
        List<Rec> records = List.of(
                new Rec("tx", 0, 3, 1_700_000_000_003L, "k3", "{\"id\":\"a3\",\"amount\":3.5}"),
                new Rec("tx", 0, 4, 1_700_000_000_004L, "k4", "{\"id\":\"a4\",\"amount\":4.5}"),
                new Rec("tx", 0, 5, 1_700_000_000_005L, "k5", "{\"id\":\"a5\",\"amount\":5.5}"),
                new Rec("tx", 0, 6, 1_700_000_000_006L, null, "{\"id\":\"a6\",\"amount\":6}"),
                new Rec("tx", 1, 0, 1_700_000_001_000L, "k10", "not json"),
                new Rec("tx", 1, 1, 1_700_000_001_001L, "k11", null),
                new Rec("tx", 2, 10, 1_700_000_002_010L, "k210", "{\"id\":\"c10\"}"),
                new Rec("other", 0, 0, 1_700_000_003_000L, "x", "{\"id\":\"x\"}"));

        StreamIngestion.Outcome outcome = ingestion.ingest(spec.streamId(),
                KafkaEvent.parse(IngestFixtures.mskEvent(records).getBytes(StandardCharsets.UTF_8)));

        assertThat(outcome.records()).isEqualTo(7);
        assertThat(outcome.rowsAdded()).isEqualTo(5);
        assertThat(rows(spec)).containsExactlyInAnyOrder(
                List.of("k5", "a5|5.5", Instant.ofEpochMilli(1_700_000_000_005L), "stream", "tx", 0, 5L),
                Arrays.asList(null, "a6|6.0", Instant.ofEpochMilli(1_700_000_000_006L), "stream", "tx", 0, 6L),
                Arrays.asList("k10", null, Instant.ofEpochMilli(1_700_000_001_000L), "stream", "tx", 1, 0L),
                Arrays.asList("k11", null, Instant.ofEpochMilli(1_700_000_001_001L), "stream", "tx", 1, 1L),
                List.of("k210", "c10|null", Instant.ofEpochMilli(1_700_000_002_010L), "stream", "tx", 2, 10L));
    }

    @Test
    void aSelfManagedBatchKeepsOnlyTheAssignedPartitionsAndLandsOnceWhenDeliveredTwice() throws Throwable {
        PipelineSpec spec = IngestFixtures.stream(directory, tables, "ingest-test-kafka", "selfmanaged", "orders",
                "{\"assign\":\"{\\\"orders\\\": [0, 2]}\"}",
                Map.of(new PartitionKey("orders", 0), 0L, new PartitionKey("orders", 2), 7L));
        List<Rec> records = List.of(
                new Rec("orders", 0, 0, 1_700_000_000_000L, "o0", "{\"id\":\"o0\",\"amount\":1}"),
                new Rec("orders", 0, 1, 1_700_000_000_001L, "o1", "{\"id\":\"o1\",\"amount\":2}"),
                new Rec("orders", 1, 0, 1_700_000_000_100L, "p0", "{\"id\":\"p0\",\"amount\":3}"),
                new Rec("orders", 2, 7, 1_700_000_000_207L, "q7", "{\"id\":\"q7\",\"amount\":4}"));
        byte[] event = IngestFixtures.selfManagedEvent(records).getBytes(StandardCharsets.UTF_8);

        StreamIngestion.Outcome first = ingestion.ingest(spec.streamId(), KafkaEvent.parse(event));
        List<List<Object>> afterFirst = rows(spec);
        StreamIngestion.Outcome second = ingestion.ingest(spec.streamId(), KafkaEvent.parse(event));

        assertThat(first.rowsAdded()).isEqualTo(3);
        assertThat(first.tableVersion()).isPresent();
        assertThat(second.rowsAdded()).isZero();
        assertThat(second.tableVersion()).isEmpty();
        assertThat(rows(spec)).isEqualTo(afterFirst).containsExactlyInAnyOrder(
                List.of("o0", "o0|1.0", Instant.ofEpochMilli(1_700_000_000_000L), "stream", "orders", 0, 0L),
                List.of("o1", "o1|2.0", Instant.ofEpochMilli(1_700_000_000_001L), "stream", "orders", 0, 1L),
                List.of("q7", "q7|4.0", Instant.ofEpochMilli(1_700_000_000_207L), "stream", "orders", 2, 7L));
    }

    @Test
    void aBatchForAnUnknownStreamFailsSoTheMappingRetries() {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> ingestion.ingest("no-such-stream",
                        KafkaEvent.parse(IngestFixtures.selfManagedEvent(
                                List.of(new Rec("t", 0, 0, 1L, null, "v"))).getBytes(StandardCharsets.UTF_8))))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("no-such-stream is not registered");
    }

    /** Rows in SPEC column order, the value struct flattened to "id|amount". */
    private List<List<Object>> rows(PipelineSpec spec) {
        List<List<Object>> out = new ArrayList<>();
        try (TableRows rows = tables.read(spec.tableLocation())) {
            while (rows.hasNext()) {
                Map<String, Object> row = rows.next();
                @SuppressWarnings("unchecked")
                Map<String, Object> value = (Map<String, Object>) row.get("value");
                out.add(Arrays.asList(row.get("key"), value == null ? null : value.get("id") + "|" + value.get("amount"),
                        row.get("stream_record_timestamp"), row.get("record_source"), row.get("kafka_topic"),
                        row.get("kafka_partition"), row.get("kafka_offset")));
            }
        }
        return out;
    }
}
