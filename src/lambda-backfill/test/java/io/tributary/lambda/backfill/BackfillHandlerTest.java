package io.tributary.lambda.backfill;

import io.tributary.lambda.RegisteredFeatureViews;
import io.tributary.lambda.RegisteredStreams;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.equalTo;

import io.quarkus.hibernate.reactive.panache.Panache;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.vertx.VertxContextSupport;
import io.tributary.delta.PartitionKey;
import io.tributary.delta.TableRows;
import io.tributary.delta.Tables;
import io.tributary.features.FeatureState;
import io.tributary.features.FeatureViewSpec;
import io.tributary.online.SyncPolicy;
import io.tributary.online.SyncState;
import io.tributary.registry.features.FeatureViewStore;
import io.tributary.registry.features.FeatureViews;
import io.tributary.registry.online.OnlineDatabase;
import io.tributary.registry.online.SyncedTableRow;
import io.tributary.registry.online.SyncedTableStore;
import io.tributary.ingest.MicroBatch;
import io.tributary.ingest.OpenedIngester;
import io.tributary.ingest.PipelineSpec;
import io.tributary.ingest.SourceRecord;
import io.tributary.registry.directory.StreamDirectory;
import io.tributary.registry.service.ConnectionService;
import io.tributary.registry.store.StreamRow;
import jakarta.inject.Inject;
import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The scheduled event, posted to Quarkus's mock event server, completes a due backfill (SPEC 5) with the Spark-written
 * tx_history fixture as source, saves backfill_status, compacts the ingestion table's small files and vacuums an old
 * data file no commit references, keeping a fresh one (SPEC 4).
 */
@Tag("quarkus")
@QuarkusTest
class BackfillHandlerTest {

    private static final String SCHEDULE_INPUT = "{\"version\":\"0\",\"source\":\"tributary.scheduler\","
            + "\"detail-type\":\"Tributary Backfill Check\",\"detail\":{}}";

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
    @Inject
    FeatureViewStore featureViews;
    @Inject
    FeatureViews views;

    @Test
    void theScheduledEventMergesADueBackfillSavesItsStatusCompactsAndVacuums() throws Throwable {
        RegisteredStreams.connection(connections, "backfill-test-kafka");
        putFixture("tx_history", tables.defaultLocation("main", "bf", "tx_history"));
        String definition = """
                {"name": "main.bf.tx",
                 "source_config": {"kafka_stream_config": {"subscription_mode": {"subscribe": "tx"}}},
                 "connection_config": {"uc_connection_name": "backfill-test-kafka"},
                 "schema_config": {"direct_schemas": {"payload_schema": {"json_schema":
                   "{\\"type\\": \\"object\\", \\"properties\\": {\\"transaction_id\\": {\\"type\\": \\"string\\"}, \\"amount\\": {\\"type\\": \\"integer\\"}, \\"currency\\": {\\"type\\": \\"string\\"}}}"}}},
                 "ingestion_config": {"ingestion_destination": {"delta_table_name": "main.bf.tx_ingestion"},
                   "backfill_source": {"delta_table_name": "main.bf.tx_history"},
                   "deduplication_columns": ["value.transaction_id"]}}""";
        PipelineSpec spec = RegisteredStreams.register(directory, tables, "backfill-test-kafka", "bf", "tx",
                definition, "WAITING_FOR_OVERLAP", Instant.now().truncatedTo(ChronoUnit.MILLIS),
                Map.of(new PartitionKey("tx", 0), 0L));
        // Two appends (two small files). The earliest stream row is 23:30; tx_history reaches 00:59: an overlap of
        // more than the default hour.
        ingest(spec, new SourceRecord("tx", 0, 0, Instant.parse("2025-12-31T23:30:00Z").toEpochMilli(),
                bytes("s-1"), bytes("{\"transaction_id\":\"tx-3\",\"amount\":1,\"currency\":\"EUR\"}")));
        ingest(spec, new SourceRecord("tx", 0, 1, Instant.parse("2026-01-01T00:10:00Z").toEpochMilli(),
                        bytes("s-2"), bytes("{\"transaction_id\":\"tx-45\",\"amount\":2,\"currency\":\"EUR\"}")),
                new SourceRecord("tx", 0, 2, Instant.parse("2026-01-01T02:00:00Z").toEpochMilli(),
                        bytes("s-3"), bytes("{\"transaction_id\":\"tx-new\",\"amount\":3,\"currency\":\"EUR\"}")));
        assertThat(tables.dataFiles(spec.tableLocation())).hasSize(2);
        // What a killed writer leaves: data files no commit references, one written 8 days ago, one just now.
        String committed = tables.dataFiles(spec.tableLocation()).get(0).path();
        Path written = tableFile(spec.tableLocation(), committed.substring(committed.lastIndexOf('/') + 1));
        Path oldOrphan = putFile(spec.tableLocation(), "part-00000-old-orphan-c000.snappy.parquet", written);
        Files.setLastModifiedTime(oldOrphan, FileTime.from(Instant.now().minus(8, ChronoUnit.DAYS)));
        Path freshOrphan = putFile(spec.tableLocation(), "part-00000-fresh-orphan-c000.snappy.parquet", written);

        // A CONTINUOUS synced table and a feature view on the stream, created after its commits (no ingest function
        // synced or materialized them): the tick catches both up, the merged rows included.
        SyncedTableRow synced = new SyncedTableRow("main.bf.tx_online", UUID.randomUUID().toString(),
                "main.bf.tx_ingestion", spec.tableLocation(), spec.streamId(), List.of("value.transaction_id"),
                "stream_record_timestamp", SyncPolicy.CONTINUOUS, "main__bf__tx_online", "alice", Instant.now());
        assertThat(syncedTables.insert(synced)).isTrue();
        online.store().register(synced.spec());
        FeatureViewSpec viewSpec = RegisteredFeatureViews.create(featureViews, views, tables, spec, "bf", "tx",
                "value.currency", "[{\"name\": \"n\", \"function\": \"count\", \"window\": {\"tumbling\": "
                        + "{\"duration\": \"1d\"}}}]");

        given().contentType("application/json").accept("application/json").body(SCHEDULE_INPUT)
                .when().post()
                .then().statusCode(200)
                .body("backfills_checked", equalTo(1))
                .body("backfills_completed", equalTo(1))
                .body("backfill_errors", equalTo(0))
                .body("tables_compacted", equalTo(1))
                .body("files_vacuumed", equalTo(1))
                .body("bytes_vacuumed", equalTo((int) Files.size(written)))
                .body("maintenance_errors", equalTo(0));
        assertThat(oldOrphan).doesNotExist();
        assertThat(freshOrphan).exists();

        // tx_history has 45 non-NULL transaction ids left after its deletes (tx-13, tx-26, tx-39 gone), two of them
        // streamed already (tx-3, tx-45), and its NULL ids collapse to one row: 45 - 3 - 2 + 1 new rows.
        StreamRow row = VertxContextSupport.subscribeAndAwait(
                () -> Panache.withSession(() -> StreamRow.<StreamRow>findById(spec.streamId())));
        assertThat(row.backfillState).isEqualTo("COMPLETED");
        assertThat(row.rowsMerged).isEqualTo(41L);
        assertThat(row.forced).isFalse();
        assertThat(row.completedAt).isNotNull();

        List<Map<String, Object>> rows = rows(spec.tableLocation());
        List<Map<String, Object>> merged = rows.stream().filter(r -> "backfill".equals(r.get("record_source"))).toList();
        assertThat(rows.stream().filter(r -> "stream".equals(r.get("record_source"))).map(r -> r.get("key")))
                .containsExactlyInAnyOrder("s-1", "s-2", "s-3");
        assertThat(merged).hasSize(41);
        assertThat(merged.stream().map(r -> (Object) ((Map<?, ?>) r.get("value")).get("transaction_id")).toList())
                .doesNotHaveDuplicates().doesNotContain("tx-3", "tx-45", "tx-13").contains((Object) null);
        // Compaction rewrote the stream files and the merge's into one, changing no row.
        assertThat(tables.dataFiles(spec.tableLocation())).hasSize(1);

        // The catch-up: a row per transaction id (43, the NULL one skipped), and every row in the view.
        long version = tables.open(spec.tableLocation()).version();
        SyncState syncState = online.store().state(synced.id());
        assertThat(syncState.version()).isEqualTo(version);
        assertThat(online.store().rows(synced.pgTable(), "value_transaction_id")).hasSize(43);
        assertThat(syncState.nullKeysSkipped()).isEqualTo(1);
        FeatureState viewState = views.store().state(viewSpec.id());
        assertThat(viewState.state()).isEqualTo(FeatureState.ONLINE);
        assertThat(viewState.version()).isEqualTo(version);
        assertThat(viewState.recordsRead() + viewState.skipped()).isEqualTo(rows.size());
        assertThat(viewState.lateDropped()).isZero();
    }

    @Test
    void anotherEventSourceIsRefused() {
        given().contentType("application/json").accept("application/json")
                .body("{\"version\":\"0\",\"source\":\"someone.else\",\"detail\":{}}")
                .when().post()
                .then().statusCode(500);
    }

    private void ingest(PipelineSpec spec, SourceRecord... records) {
        MicroBatch.Builder batch = MicroBatch.builder();
        for (SourceRecord r : records) {
            batch.add(r);
        }
        assertThat(OpenedIngester.open(tables, spec).ingester().ingest(batch.build())).isPresent();
    }

    private List<Map<String, Object>> rows(String location) {
        List<Map<String, Object>> out = new ArrayList<>();
        try (TableRows rows = tables.read(location)) {
            rows.forEachRemaining(out::add);
        }
        return out;
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    /** The plain file that holds {@code name} of the table at {@code location} (its age can be set on it). */
    protected Path tableFile(String location, String name) {
        return Path.of(URI.create(location)).resolve(name);
    }

    /** Writes a copy of {@code content} into the table's directory as {@code name}, the way a writer would. */
    protected Path putFile(String location, String name, Path content) throws IOException {
        return Files.copy(content, tableFile(location, name));
    }

    /** Puts a Spark-written fixture of src/test/resources/backfill-fixtures (bench/backfill/fixtures) at a location. */
    protected void putFixture(String name, String location) throws IOException, URISyntaxException {
        Path to = Path.of(URI.create(location));
        Path from = fixture(name);
        try (Stream<Path> files = Files.walk(from)) {
            for (Path p : files.toList()) {
                Path target = to.resolve(from.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(p, target);
                }
            }
        }
    }

    static Path fixture(String name) throws URISyntaxException {
        return Path.of(BackfillHandlerTest.class.getResource("/backfill-fixtures/" + name).toURI());
    }
}
