package io.tributary.delta;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tributary.testing.S3ProxyServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.avro.generic.GenericRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The same table operations against a real S3-compatible server (S3Proxy in a child process). */
class S3TableTest {
    private static final String BUCKET = "warehouse";

    @TempDir
    static Path dir;

    static S3ProxyServer s3;

    @BeforeAll
    static void startS3() {
        s3 = S3ProxyServer.start(dir).exportCredentials();
        s3.createBucket(BUCKET);
    }

    @AfterAll
    static void stopS3() {
        if (s3 != null) {
            s3.close();
        }
    }

    private static Tables tables() {
        return Tables.forWarehouse("s3://" + BUCKET + "/tables", Optional.of(s3.endpoint()));
    }

    /** Before, a create against a missing bucket answered 500 and the pipeline showed only the SDK's words. */
    @Test
    void aMissingBucketOrAnUnreachableEndpointSaysWhichSettingToFix() throws Exception {
        Tables noBucket = Tables.forWarehouse("s3://no-such-bucket/tables", Optional.of(s3.endpoint()));
        assertThatThrownBy(() -> noBucket.exists(noBucket.defaultLocation("main", "s", "t")))
                .hasRootCauseInstanceOf(software.amazon.awssdk.services.s3.model.NoSuchBucketException.class)
                .satisfies(e -> assertThat(warehouseFailure(e)).hasMessageContaining(
                        "the warehouse bucket 'no-such-bucket' does not exist", "TRIBUTARY_WAREHOUSE"));

        int closed;
        try (java.net.ServerSocket socket = new java.net.ServerSocket(0)) {
            closed = socket.getLocalPort();
        }
        Tables unreachable = Tables.forWarehouse("s3://" + BUCKET + "/tables",
                Optional.of("http://127.0.0.1:" + closed));
        assertThatThrownBy(() -> unreachable.exists(unreachable.defaultLocation("main", "s", "t")))
                .satisfies(e -> assertThat(warehouseFailure(e)).hasMessageContaining("cannot be reached",
                        "TRIBUTARY_S3_ENDPOINT"));
    }

    private static WarehouseUnavailableException warehouseFailure(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof WarehouseUnavailableException w) {
                return w;
            }
        }
        throw new AssertionError("no WarehouseUnavailableException in the chain of " + e, e);
    }

    @Test
    void roundTripPositionsCheckpointsAndDelete() {
        Tables tables = tables();
        String location = tables.defaultLocation("main", "fraud", "payments");
        assertThat(location).isEqualTo("s3://warehouse/tables/main/fraud/payments");
        assertThat(tables.exists(location)).isFalse();
        assertThatThrownBy(() -> tables.open(location)).isInstanceOf(NoSuchTableException.class);

        PartitionKey p = new PartitionKey("payments", 0);
        DeltaTable table = tables.create(location, TestRows.RICH, Map.of(p, 0L));
        assertThatThrownBy(() -> tables.create(location, TestRows.RICH, Map.of())).isInstanceOf(TableExistsException.class);
        List<GenericRecord> all = TestRows.rich(120);
        for (int i = 0; i < 12; i++) {
            List<GenericRecord> batch = all.subList(i * 10, i * 10 + 10);
            table.commit(List.of(table.writeDataFile(batch)), Map.of(p, new OffsetRange(i * 10L, i * 10L + 10)));
        }
        assertThat(s3.keys(BUCKET, "tables/main/fraud/payments/_delta_log/"))
                .contains("tables/main/fraud/payments/_delta_log/00000000000000000010.checkpoint.parquet",
                        "tables/main/fraud/payments/_delta_log/_last_checkpoint");
        assertThatThrownBy(() -> table.commit(List.of(), Map.of(p, new OffsetRange(100, 110))))
                .isInstanceOf(PositionConflictException.class);

        Tables reader = tables(); // a fresh engine: nothing cached
        assertThat(reader.open(location).positions()).containsExactly(Map.entry(p, 120L));
        assertThat(TestRows.readAll(reader, location)).containsExactlyInAnyOrderElementsOf(all.stream().map(TestRows::normal).toList());
        assertThat(reader.open(location).status().numRecords()).isEqualTo(120);
        assertThat(reader.columns(location)).hasSize(7);

        reader.delete(location);
        assertThat(reader.exists(location)).isFalse();
        assertThat(s3.keys(BUCKET, "tables/main/fraud/payments/")).isEmpty();
    }

    @Test
    void twoEnginesRaceWithoutLosingCommits() throws Exception {
        ConcurrentWritersCheck.twoEnginesRace(S3TableTest::tables, "s3://" + BUCKET + "/tables/c/s/race");
    }

    @Test
    void twoProcessesRaceWithoutLosingCommits() throws Exception {
        Tables tables = tables();
        String location = tables.defaultLocation("c", "s", "processes");
        PartitionKey shared = new PartitionKey("shared", 0);
        tables.create(location, TestRows.SIMPLE, Map.of(shared, 0L));
        int commits = 10;
        List<String> jvm = List.of("-Daws.accessKeyId=" + S3ProxyServer.ACCESS_KEY,
                "-Daws.secretAccessKey=" + S3ProxyServer.SECRET_KEY, "-Daws.region=" + S3ProxyServer.REGION);
        String root = "s3://" + BUCKET + "/tables";
        Process a = ContendingWriter.spawn(dir, "s3a", List.of(root, location, "shared", "0", "" + commits,
                dir.resolve("s3a.result").toString(), s3.endpoint()), jvm, dir.resolve("s3go"));
        Process b = ContendingWriter.spawn(dir, "s3b", List.of(root, location, "shared", "0", "" + commits,
                dir.resolve("s3b.result").toString(), s3.endpoint()), jvm, dir.resolve("s3go"));
        ContendingWriter.release(List.of(dir.resolve("s3a.result"), dir.resolve("s3b.result")), dir.resolve("s3go"));
        assertThat(a.waitFor(3, TimeUnit.MINUTES)).isTrue();
        assertThat(b.waitFor(3, TimeUnit.MINUTES)).isTrue();
        assertThat(a.exitValue()).as(Files.readString(dir.resolve("s3a.log"))).isZero();
        assertThat(b.exitValue()).as(Files.readString(dir.resolve("s3b.log"))).isZero();
        ConcurrentWritersCheck.assertContiguous(tables, location, Map.of(shared, 2L * commits * ContendingWriter.BATCH));
    }

    /**
     * S3 goes away (killed, like a crash) twice while a writer keeps committing; commits retry through the outage.
     * Afterwards the table holds exactly the rows of the commits that returned, each once.
     */
    @Test
    void survivesS3RestartsDuringCommits() throws Exception {
        Tables tables = tables();
        String location = tables.defaultLocation("c", "s", "restarts");
        PartitionKey p = new PartitionKey("t", 0);
        DeltaTable table = tables.create(location, TestRows.SIMPLE, Map.of(p, 0L));
        AtomicBoolean outagesOver = new AtomicBoolean();
        AtomicLong slowestCommitMillis = new AtomicLong();
        AtomicInteger fileWriteFailures = new AtomicInteger();
        ExecutorService pool = Executors.newSingleThreadExecutor();
        long committed;
        try {
            Future<Long> writer = pool.submit(() -> {
                long next = 0;
                while (!outagesOver.get() || next < 100) {
                    DataFile f;
                    try {
                        f = table.writeDataFile(TestRows.simple("t", 0, next, next + 5));
                    } catch (RuntimeException e) {
                        fileWriteFailures.incrementAndGet(); // S3 down while storing the data file: write it again
                        Thread.sleep(200);
                        continue;
                    }
                    long t0 = System.currentTimeMillis();
                    table.commit(List.of(f), Map.of(p, new OffsetRange(next, next + 5)));
                    slowestCommitMillis.accumulateAndGet(System.currentTimeMillis() - t0, Math::max);
                    next += 5;
                }
                return next;
            });
            for (int outage = 0; outage < 2; outage++) {
                Thread.sleep(1500);
                s3.stop();
                Thread.sleep(3000);
                s3.start();
            }
            outagesOver.set(true);
            committed = writer.get(4, TimeUnit.MINUTES);
        } finally {
            pool.shutdownNow();
        }
        // The writer was mid-way when S3 went down: some write had to wait for it to come back.
        assertThat(fileWriteFailures.get() > 0 || slowestCommitMillis.get() > 2000)
                .as("failed data-file writes %s, slowest commit %s ms", fileWriteFailures, slowestCommitMillis).isTrue();
        ConcurrentWritersCheck.assertContiguous(tables(), location, Map.of(p, committed));
    }
}
