package io.tributary.lambda.ingest;

import static io.tributary.lambda.ingest.IngestFixtures.Rec;
import static org.assertj.core.api.Assertions.assertThat;

import io.quarkus.test.junit.QuarkusTest;
import io.tributary.delta.PartitionKey;
import io.tributary.delta.Tables;
import io.tributary.ingest.PipelineSpec;
import io.tributary.online.SyncPolicy;
import io.tributary.registry.directory.StreamDirectory;
import io.tributary.registry.online.OnlineDatabase;
import io.tributary.registry.online.SyncedTableRow;
import io.tributary.registry.online.SyncedTableStore;
import io.tributary.registry.service.ConnectionService;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** On AWS the ingest function syncs a stream's CONTINUOUS synced tables with what it committed, before it returns. */
@Tag("quarkus")
@QuarkusTest
class IngestSyncedTableTest {
    @Inject
    StreamIngestion ingestion;
    @Inject
    StreamDirectory directory;
    @Inject
    ConnectionService connections;
    @Inject
    Tables tables;
    @Inject
    SyncedTableStore syncedTables;
    @Inject
    OnlineDatabase online;
    @org.eclipse.microprofile.config.inject.ConfigProperty(name = "kafka.bootstrap.servers")
    String bootstrap;

    @Test
    void whatAnInvocationCommitsIsInTheSyncedTableWhenItReturns() throws Throwable {
        IngestFixtures.connection(connections, "ingest-synced-kafka", bootstrap);
        String schema = "synced" + Long.toString(System.nanoTime(), 36);
        PipelineSpec spec = IngestFixtures.stream(directory, tables, "ingest-synced-kafka", schema, "tx",
                "{\"subscribe\":\"tx\"}", Map.of(new PartitionKey("tx", 0), 0L));
        String name = "main." + schema + ".tx_online";
        SyncedTableRow row = new SyncedTableRow(name, UUID.randomUUID().toString(), "main." + schema
                + ".tx_ingestion", spec.tableLocation(), spec.streamId(), List.of("value.id"),
                "stream_record_timestamp", SyncPolicy.CONTINUOUS, "main__" + schema + "__tx_online", "alice",
                Instant.now());
        assertThat(syncedTables.insert(row)).isTrue();
        online.store().register(row.spec());

        StreamIngestion.Outcome outcome = ingestion.ingest(spec.streamId(), KafkaEvent.parse(IngestFixtures
                .selfManagedEvent(List.of(
                        new Rec("tx", 0, 0, 1_700_000_000_000L, "k", "{\"id\":\"a\",\"amount\":1}"),
                        new Rec("tx", 0, 1, 1_700_000_000_001L, "k", "{\"id\":\"b\",\"amount\":2}"),
                        new Rec("tx", 0, 2, 1_700_000_000_002L, "k", "{\"id\":\"a\",\"amount\":3}")))
                .getBytes(StandardCharsets.UTF_8)));

        assertThat(outcome.rowsAdded()).isEqualTo(3);
        Map<String, Object> amounts = new TreeMap<>();
        for (Map<String, Object> r : online.store().rows(row.pgTable(), "value_id")) {
            amounts.put((String) r.get("value_id"), r.get("value_amount"));
        }
        assertThat(amounts).containsExactly(Map.entry("a", 3.0), Map.entry("b", 2.0));
        assertThat(online.store().state(row.id()).version()).isEqualTo(outcome.tableVersion().orElseThrow());
    }
}
