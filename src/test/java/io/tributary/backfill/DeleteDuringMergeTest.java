package io.tributary.backfill;

import static io.tributary.testing.Api.ROOT;
import static io.tributary.testing.Api.as;
import static io.tributary.testing.Api.unique;
import static io.tributary.testing.StreamRequests.with;
import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.testing.Latches;
import io.tributary.testing.TestFiles;
import io.quarkus.test.junit.QuarkusTest;
import io.tributary.delta.DeltaTable;
import io.tributary.delta.OffsetRange;
import io.tributary.delta.PartitionKey;
import io.tributary.delta.PausingTables;
import io.tributary.delta.Tables;
import io.tributary.registry.lock.StreamWriteLocks;
import jakarta.inject.Inject;
import java.time.Clock;
import java.time.Duration;
import org.awaitility.Awaitility;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * SPEC 2.3: no write lands after DELETE returns, also from the background writers that may run in another process
 * (the backfill merge, compaction). A merge or compaction holds the table's write lock (PostgreSQL) across its commit;
 * the delete waits for it, and one that comes after the delete finds the stream gone and writes nothing. The stream's
 * own stream rows start at 05:00, so the server's schedule never finds the overlap: only the test's merges run.
 */
@Tag("quarkus")
@QuarkusTest
class DeleteDuringMergeTest {
    private static final String STREAMS = "/api/2.0/feature-engineering/streams";
    private static final List<String> TX_ID = List.of("value.transaction_id");
    /** Long enough for a delete that does not wait to have returned. */
    private static final long WAIT_MILLIS = 2_000;
    private static final long TARGET_FILE_BYTES = 128L * 1024 * 1024;

    @Inject
    Tables tables;
    @Inject
    StreamWriteLocks writeLocks;
    @ConfigProperty(name = "kafka.bootstrap.servers")
    String bootstrap;
    @ConfigProperty(name = "tributary.warehouse")
    String warehouse;

    private record Created(String name, String id, String location, BackfillJob job) {}

    @Test
    void aDeleteWaitsForAMergeCommittingAndNothingIsLeftAfterIt() throws Exception {
        Created s = create();
        CountDownLatch paused = new CountDownLatch(1);
        CountDownLatch resume = new CountDownLatch(1);
        Backfill backfill = forced(new MergeHooks() {
            @Override
            public void guarded(int attempt) {
                paused.countDown();
                Latches.awaitRelease(resume);
            }
        });
        BackfillStatus due = backfill.check(s.job());
        assertThat(due.state()).isEqualTo(BackfillState.MERGING);
        CompletableFuture<BackfillStatus> merge = CompletableFuture.supplyAsync(
                () -> backfill.merge(s.job(), due, writeLocks.forStream(s.id(), s.location())));
        assertThat(paused.await(60, TimeUnit.SECONDS)).isTrue();

        CompletableFuture<Integer> delete = CompletableFuture.supplyAsync(
                () -> as(ROOT).delete(STREAMS + "/" + s.name()).then().extract().statusCode());
        Awaitility.await("the delete waits for the merge's commit").during(Duration.ofMillis(WAIT_MILLIS))
                .atMost(Duration.ofMillis(WAIT_MILLIS + 2_000)).until(() -> !delete.isDone());
        assertThat(tables.exists(s.location())).isTrue();

        resume.countDown();
        assertThat(merge.get(60, TimeUnit.SECONDS).state()).isEqualTo(BackfillState.COMPLETED);
        assertThat(delete.get(60, TimeUnit.SECONDS)).isEqualTo(200);
        assertThat(TestFiles.under(s.location())).isEmpty();
        as(ROOT).get(STREAMS + "/" + s.name()).then().statusCode(404);
        Awaitility.await("no file lands after the delete").during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(3))
                .until(() -> TestFiles.under(s.location()).isEmpty());
    }

    @Test
    void aMergeWhoseStreamWasDeletedBeforeItCommitsWritesNothingAndReportsTheStreamGone() throws Exception {
        Created s = create();
        CountDownLatch paused = new CountDownLatch(1);
        CountDownLatch resume = new CountDownLatch(1);
        // Stopped before its first data file: the merge holds no lock while it writes files, so the delete does
        // not wait, and the files the merge writes afterwards land under the deleted location.
        Backfill backfill = forced(pausing(paused, resume), MergeHooks.NONE);
        BackfillStatus due = backfill.check(s.job());
        CompletableFuture<BackfillStatus> merge = CompletableFuture.supplyAsync(
                () -> backfill.merge(s.job(), due, writeLocks.forStream(s.id(), s.location())));
        assertThat(paused.await(60, TimeUnit.SECONDS)).isTrue();

        as(ROOT).delete(STREAMS + "/" + s.name()).then().statusCode(200);
        assertThat(TestFiles.under(s.location())).isEmpty();
        resume.countDown();

        BackfillStatus status = merge.get(60, TimeUnit.SECONDS);
        assertThat(status.state()).isEqualTo(BackfillState.FAILED);
        assertThat(status.message()).isEqualTo(Backfill.STREAM_GONE);
        assertThat(TestFiles.under(s.location())).as("the merge removed the files it wrote after the delete").isEmpty();
        assertThat(tables.exists(s.location())).isFalse();
    }

    @Test
    void aDeleteWaitsForACompactionAndACompactionAfterTheDeleteDoesNotRun() throws Exception {
        Created s = create();
        CountDownLatch paused = new CountDownLatch(1);
        CountDownLatch resume = new CountDownLatch(1);
        // Stopped at its output file: it has read the table's snapshot and commits on it next. Unfenced, that
        // commit recreates a _delta_log (a broken table: no version 0) under the deleted location.
        Tables compacting = pausing(paused, resume);
        CompletableFuture<Optional<Optional<Long>>> compaction = CompletableFuture.supplyAsync(
                () -> writeLocks.forTable(s.location()).run(() -> compacting.open(s.location()).compact(TARGET_FILE_BYTES)));
        assertThat(paused.await(60, TimeUnit.SECONDS)).isTrue();
        CompletableFuture<Integer> delete = CompletableFuture.supplyAsync(
                () -> as(ROOT).delete(STREAMS + "/" + s.name()).then().extract().statusCode());
        Awaitility.await("the delete waits for the compaction's commit").during(Duration.ofMillis(WAIT_MILLIS))
                .atMost(Duration.ofMillis(WAIT_MILLIS + 2_000)).until(() -> !delete.isDone());

        resume.countDown();
        Optional<Optional<Long>> compacted = compaction.get(60, TimeUnit.SECONDS);
        assertThat(delete.get(60, TimeUnit.SECONDS)).isEqualTo(200);
        assertThat(compacted).isPresent();
        assertThat(compacted.get()).as("two small stream files were rewritten into one").isPresent();
        assertThat(TestFiles.under(s.location())).isEmpty();

        boolean[] ran = {false};
        assertThat(writeLocks.forTable(s.location()).run(() -> ran[0] = true)).isEmpty();
        assertThat(ran[0]).isFalse();
        assertThat(TestFiles.under(s.location())).isEmpty();
    }

    /** A stream with tx_history as its backfill source and two commits of stream rows (two small files). */
    private Created create() throws Exception {
        String schema = unique("del");
        BackfillFixtures.ApiStream stream = BackfillFixtures.createTxStreamWithHistory(tables, bootstrap, schema);
        String source = stream.source();
        String topic = stream.topic();
        String name = stream.name();
        var created = stream.created();

        String location = tables.defaultLocation("main", schema, "tx_ingestion");
        DeltaTable table = tables.open(location);
        PartitionKey p0 = new PartitionKey(topic, 0);
        for (int i = 0; i < 2; i++) {
            long from = table.positions().get(p0);
            table.commit(List.of(table.writeDataFile(List.of(BackfillFixtures.txRow(table.rowSchema(), "s-" + i, "tx-late-" + i,
                    Instant.parse("2026-01-01T05:00:00Z"), topic, from)))), Map.of(p0, new OffsetRange(from, from + 1)));
        }
        Instant createdAt = Instant.parse(created.getString("created_at"));
        return new Created(name, created.getString("stream_id"), location,
                new BackfillJob(location, source, TX_ID, createdAt));
    }

    /** Past max-wait, so the merge is due (forced) at once. */
    private Backfill forced(MergeHooks hooks) {
        return forced(tables, hooks);
    }

    private static Backfill forced(Tables on, MergeHooks hooks) {
        Clock later = Clock.fixed(Instant.now().plus(Duration.ofHours(49)), ZoneOffset.UTC);
        return new Backfill(on, BackfillSettings.defaults(), later, hooks);
    }

    /** The warehouse's tables, stopping at the first data file written until {@code resume}. */
    private Tables pausing(CountDownLatch paused, CountDownLatch resume) {
        return PausingTables.beforeDataFileWrites(warehouse, () -> {
            if (paused.getCount() > 0) {
                paused.countDown();
                Latches.awaitRelease(resume);
            }
        });
    }
}
