package io.tributary.backfill;

import static io.tributary.backfill.BackfillFixtures.BASE;
import static io.tributary.backfill.BackfillFixtures.P0;
import static io.tributary.backfill.BackfillFixtures.append;
import static io.tributary.backfill.BackfillFixtures.plainRow;
import static io.tributary.backfill.BackfillFixtures.txRow;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tributary.delta.DeltaTable;
import io.tributary.delta.Tables;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.avro.generic.GenericRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BackfillMergeTest {
    private static final Instant CREATED = Instant.parse("2026-01-02T00:00:00Z");
    private static final List<String> TX_ID = List.of("value.transaction_id");

    @TempDir
    Path dir;

    private Tables tables() {
        return Tables.forWarehouse(dir.resolve("warehouse").toString(), Optional.empty());
    }

    private static Clock at(Instant t) {
        return Clock.fixed(t, ZoneOffset.UTC);
    }

    /** Stream rows from 23:30 the day before: tx_history (up to 00:59) overlaps them by more than an hour. */
    private static List<GenericRecord> earlyStream() {
        return List.of(
                txRow("s-1", "tx-3", 1L, Instant.parse("2025-12-31T23:30:00Z"), 0),
                txRow("s-2", "tx-45", 2L, Instant.parse("2026-01-01T00:10:00Z"), 1),
                txRow("s-3", "tx-new", 3L, Instant.parse("2026-01-01T02:00:00Z"), 2));
    }

    @Test
    void overlapMetMergesOnANestedDedupColumnWithWideningAndNulls() {
        Tables tables = tables();
        String source = BackfillFixtures.copy("tx_history", dir);
        String location = tables.defaultLocation("main", "fraud", "tx");
        DeltaTable table = BackfillFixtures.createIngestion(tables, location, BackfillFixtures.TX_STREAM);
        append(table, earlyStream(), 2);
        List<Map<String, Object>> before = KernelScan.rows(location);

        Backfill backfill = new Backfill(tables, BackfillSettings.defaults(), at(CREATED.plusSeconds(60)));
        BackfillJob job = new BackfillJob(location, source, TX_ID, CREATED);
        BackfillStatus status = backfill.run(job);

        List<Map<String, Object>> expected = BackfillFixtures.referenceMerge(before, KernelScan.rows(source), TX_ID,
                BackfillFixtures::txFromHistory);
        List<Map<String, Object>> actual = KernelScan.rows(location);
        assertThat(actual).containsExactlyInAnyOrderElementsOf(expected);
        assertThat(status.state()).isEqualTo(BackfillState.COMPLETED);
        assertThat(status.forced()).isFalse();
        // Row 59 is the latest; deletion vectors make the statistics loose, so the column was scanned (exact µs).
        assertThat(status.backfillMaxTimestamp()).isEqualTo(BASE.plus(Duration.ofMinutes(59)).plusNanos(123_000));
        assertThat(status.ingestionMinTimestamp()).isEqualTo(Instant.parse("2025-12-31T23:30:00Z"));
        assertThat(status.rowsMerged()).isEqualTo(expected.size() - before.size());
        assertThat(status.completedAt()).isEqualTo(CREATED.plusSeconds(60));

        // 45 non-NULL ids (i % 10 = 7 is NULL); deleting i % 13 = 0 removes tx-13, tx-26 and tx-39 entirely (tx-0 and
        // tx-2 survive in rows 50 and 2); tx-3 and tx-45 were streamed; the NULLs collapse to one row.
        List<Map<String, Object>> merged = actual.stream().filter(r -> "backfill".equals(r.get("record_source"))).toList();
        List<Object> ids = merged.stream().map(r -> (Object) ((Map<?, ?>) r.get("value")).get("transaction_id")).toList();
        assertThat(ids).doesNotHaveDuplicates().doesNotContain("tx-3", "tx-45").contains((Object) null);
        assertThat(ids).hasSize(45 - 3 - 2 + 1);
        assertThat(merged).allSatisfy(r -> {
            assertThat(r.get("kafka_topic")).isEqualTo("legacy");
            assertThat(((Map<?, ?>) r.get("value")).get("amount")).isInstanceOf(Long.class);
            assertThat(((Map<?, ?>) r.get("value")).get("currency")).isNull();
        });
        assertThat(table.positions()).containsExactly(Map.entry(P0, 3L));
        // The merge re-sets every position domain (to conflict with any stream commit); the stream's count stays.
        assertThat(table.status().decodeFailures()).isEqualTo(2);
    }

    @Test
    void defaultKeyCollapsesExactDuplicatesAndKafkaColumnsAbsentAreNull() {
        Tables tables = tables();
        String source = BackfillFixtures.copy("plain_history", dir);
        String location = tables.defaultLocation("main", "s", "plain");
        DeltaTable table = BackfillFixtures.createIngestion(tables, location, BackfillFixtures.PLAIN_STREAM);
        // (k3, v3, 00:03) is in the source as well; (k4, v4) at another time is not the same key.
        append(table, List.of(
                plainRow("k3", "v3", BASE.plus(Duration.ofMinutes(3)), 0),
                plainRow("k4", "v4", BASE.plus(Duration.ofMinutes(40)), 1),
                plainRow("early", "x", Instant.parse("2025-12-31T22:00:00Z"), 2)));
        List<Map<String, Object>> before = KernelScan.rows(location);

        BackfillStatus status = new Backfill(tables, BackfillSettings.defaults(), at(CREATED)).run(
                new BackfillJob(location, source, List.of(), CREATED));

        List<Map<String, Object>> expected = BackfillFixtures.referenceMerge(before, KernelScan.rows(source),
                DedupKeys.DEFAULT, BackfillFixtures::plainFromHistory);
        assertThat(KernelScan.rows(location)).containsExactlyInAnyOrderElementsOf(expected);
        assertThat(status.state()).isEqualTo(BackfillState.COMPLETED);
        // No deletion vectors here: the statistics answer (Spark records milliseconds; the max is a whole minute).
        assertThat(status.backfillMaxTimestamp()).isEqualTo(BASE.plus(Duration.ofMinutes(11)));
        // 30 source rows over 12 keys, one with a µs difference, NULL keys and values among them.
        assertThat(status.rowsMerged()).isEqualTo(expected.size() - before.size()).isBetween(10L, 20L);
        assertThat(KernelScan.rows(location).stream().filter(r -> "backfill".equals(r.get("record_source"))))
                .allSatisfy(r -> assertThat(r).containsEntry("kafka_topic", null).containsEntry("kafka_partition", null)
                        .containsEntry("kafka_offset", null));
    }

    @Test
    void waitsForTheOverlapThenMergesForcedAfterMaxWait() {
        Tables tables = tables();
        String source = BackfillFixtures.copy("tx_history", dir);
        String location = tables.defaultLocation("main", "fraud", "late");
        DeltaTable table = BackfillFixtures.createIngestion(tables, location, BackfillFixtures.TX_STREAM);
        // First streamed record at 00:30: the source (to 00:59) would need to reach 01:30.
        append(table, List.of(txRow("s-1", "tx-1", 1L, BASE.plus(Duration.ofMinutes(30)), 0)));
        long version = KernelScan.version(location);
        BackfillJob job = new BackfillJob(location, source, TX_ID, CREATED);

        BackfillStatus waiting = new Backfill(tables, BackfillSettings.defaults(), at(CREATED.plus(Duration.ofHours(47)))).run(job);
        assertThat(waiting.state()).isEqualTo(BackfillState.WAITING_FOR_OVERLAP);
        assertThat(waiting.ingestionMinTimestamp()).isEqualTo(BASE.plus(Duration.ofMinutes(30)));
        assertThat(waiting.backfillMaxTimestamp()).isEqualTo(BASE.plus(Duration.ofMinutes(59)).plusNanos(123_000));
        assertThat(waiting.message()).contains("2026-01-01T01:30:00Z");
        assertThat(KernelScan.version(location)).isEqualTo(version);

        List<Map<String, Object>> before = KernelScan.rows(location);
        BackfillStatus forced = new Backfill(tables, BackfillSettings.defaults(), at(CREATED.plus(Duration.ofHours(48)))).run(job);
        assertThat(forced.state()).isEqualTo(BackfillState.COMPLETED);
        assertThat(forced.forced()).isTrue();
        assertThat(KernelScan.rows(location)).containsExactlyInAnyOrderElementsOf(BackfillFixtures.referenceMerge(before,
                KernelScan.rows(source), TX_ID, BackfillFixtures::txFromHistory));
    }

    @Test
    void aSecondRunFindsTheMarkerAndChangesNothing() {
        Tables tables = tables();
        String source = BackfillFixtures.copy("tx_history", dir);
        String location = tables.defaultLocation("main", "fraud", "twice");
        DeltaTable table = BackfillFixtures.createIngestion(tables, location, BackfillFixtures.TX_STREAM);
        append(table, earlyStream());
        BackfillJob job = new BackfillJob(location, source, TX_ID, CREATED);
        BackfillStatus first = new Backfill(tables, BackfillSettings.defaults(), at(CREATED)).run(job);
        long version = KernelScan.version(location);
        List<Map<String, Object>> rows = KernelScan.rows(location);

        BackfillStatus again = new Backfill(tables, BackfillSettings.defaults(), at(CREATED.plusSeconds(3600))).run(job);

        assertThat(again).isEqualTo(first);
        assertThat(KernelScan.version(location)).isEqualTo(version);
        assertThat(KernelScan.rows(location)).containsExactlyInAnyOrderElementsOf(rows);
    }

    /**
     * Every server (and the backfill function) runs the check and may merge the same stream at the same time: one
     * commit lands, the others find its marker. The loser's data files were written under the table's location and
     * are never committed; they must go, not wait a week for vacuum (a backfill can be the size of the table).
     */
    @Test
    void aMergeThatLosesToAnotherServersMergeLeavesNoFileBehind() {
        Tables tables = tables();
        String source = BackfillFixtures.copy("tx_history", dir);
        String location = tables.defaultLocation("main", "fraud", "two_servers");
        DeltaTable table = BackfillFixtures.createIngestion(tables, location, BackfillFixtures.TX_STREAM);
        append(table, earlyStream());
        BackfillJob job = new BackfillJob(location, source, TX_ID, CREATED);
        List<BackfillStatus> other = new ArrayList<>();
        Backfill losing = new Backfill(tables, BackfillSettings.defaults(), at(CREATED), new MergeHooks() {
            @Override
            public void beforeCommit(int attempt) {
                if (other.isEmpty()) {
                    // The other server's merge, with its own Tables, lands first.
                    other.add(new Backfill(tables(), BackfillSettings.defaults(), at(CREATED)).run(job));
                }
            }
        });

        BackfillStatus status = losing.run(job);

        assertThat(other.get(0).state()).isEqualTo(BackfillState.COMPLETED);
        assertThat(status).isEqualTo(other.get(0));
        assertThat(parquetFiles(location)).as("only the files the table references")
                .containsExactlyInAnyOrderElementsOf(tables.dataFiles(location).stream()
                        .map(f -> f.path().substring(f.path().lastIndexOf('/') + 1)).toList());
    }

    /** A redone round's files (stream rows raced in with its keys) are not left behind either. */
    @Test
    void aRedoneRoundLeavesNoFileBehind() {
        Tables tables = tables();
        String source = BackfillFixtures.copy("tx_history", dir);
        String location = tables.defaultLocation("main", "fraud", "redo_files");
        DeltaTable table = BackfillFixtures.createIngestion(tables, location, BackfillFixtures.TX_STREAM);
        append(table, earlyStream());
        BackfillJob job = new BackfillJob(location, source, TX_ID, CREATED);
        DeltaTable streamWriter = tables().open(location);
        AtomicInteger calls = new AtomicInteger();
        Backfill backfill = new Backfill(tables, BackfillSettings.defaults(), at(CREATED), new MergeHooks() {
            @Override
            public void beforeCommit(int attempt) {
                if (calls.getAndIncrement() == 0) {
                    // tx-20 is in the source too: the round that wrote it must be redone.
                    append(streamWriter, List.of(txRow("r-1", "tx-20", 20L, Instant.parse("2026-01-01T03:00:00Z"),
                            3)));
                }
            }
        });

        assertThat(backfill.run(job).state()).isEqualTo(BackfillState.COMPLETED);
        assertThat(calls.get()).as("a redo happened").isGreaterThan(1);
        assertThat(parquetFiles(location)).as("only the files the table references")
                .containsExactlyInAnyOrderElementsOf(tables.dataFiles(location).stream()
                        .map(f -> f.path().substring(f.path().lastIndexOf('/') + 1)).toList());
    }

    private static List<String> parquetFiles(String location) {
        return io.tributary.testing.TestFiles.regularFilesUnder(location).stream()
                .map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".parquet")).toList();
    }

    /** Stands for the process dying: not a RuntimeException, so nothing in the merge handles it. */
    private static final class Crash extends Error {
        Crash() {
            super("simulated crash");
        }
    }

    @Test
    void aCrashBeforeTheCommitLeavesNothingAndTheRerunMergesOnce() {
        Tables tables = tables();
        String source = BackfillFixtures.copy("tx_history", dir);
        String location = tables.defaultLocation("main", "fraud", "crash");
        DeltaTable table = BackfillFixtures.createIngestion(tables, location, BackfillFixtures.TX_STREAM);
        append(table, earlyStream());
        List<Map<String, Object>> before = KernelScan.rows(location);
        long version = KernelScan.version(location);
        BackfillJob job = new BackfillJob(location, source, TX_ID, CREATED);

        Backfill crashing = new Backfill(tables, BackfillSettings.defaults(), at(CREATED), new MergeHooks() {
            @Override
            public void beforeCommit(int attempt) {
                throw new Crash();
            }
        });
        assertThatThrownBy(() -> crashing.run(job)).isInstanceOf(Crash.class);
        assertThat(KernelScan.version(location)).isEqualTo(version);
        assertThat(KernelScan.rows(location)).containsExactlyInAnyOrderElementsOf(before);

        BackfillStatus status = new Backfill(tables, BackfillSettings.defaults(), at(CREATED)).run(job);
        assertThat(status.state()).isEqualTo(BackfillState.COMPLETED);
        assertThat(KernelScan.version(location)).isEqualTo(version + 1);
        assertThat(KernelScan.rows(location)).containsExactlyInAnyOrderElementsOf(BackfillFixtures.referenceMerge(before,
                KernelScan.rows(source), TX_ID, BackfillFixtures::txFromHistory));
    }

    @Test
    void streamCommitsDuringTheMergeAreKeptAndTheirKeysAreNotInsertedAgain() throws Exception {
        Tables tables = tables();
        String source = BackfillFixtures.copy("tx_history", dir);
        String location = tables.defaultLocation("main", "fraud", "race");
        DeltaTable table = BackfillFixtures.createIngestion(tables, location, BackfillFixtures.TX_STREAM);
        append(table, earlyStream());
        BackfillJob job = new BackfillJob(location, source, TX_ID, CREATED);
        // The stream's own writer, with its own Tables (engine, caches), committing from another thread.
        DeltaTable streamWriter = tables().open(location);
        Instant now = Instant.parse("2026-01-01T03:00:00Z");
        List<List<GenericRecord>> racing = List.of(
                // tx-20 is also in the source and the merge has already written it: the round must be redone.
                List.of(txRow("r-1", "tx-20", 20L, now, 3), txRow("r-2", "tx-race-1", 21L, now, 4)),
                // no shared key: the merge only re-checks and commits on the newer version.
                List.of(txRow("r-3", "tx-race-2", 22L, now, 5)),
                List.of(txRow("r-4", "tx-21", 23L, now, 6)));
        AtomicInteger calls = new AtomicInteger();
        List<Integer> attempts = new ArrayList<>();
        Backfill backfill = new Backfill(tables, BackfillSettings.defaults(), at(CREATED), new MergeHooks() {
            @Override
            public void beforeCommit(int attempt) {
                attempts.add(attempt);
                int call = calls.getAndIncrement();
                if (call < racing.size()) {
                    Thread t = new Thread(() -> append(streamWriter, racing.get(call)));
                    t.start();
                    try {
                        t.join();
                    } catch (InterruptedException e) {
                        throw new IllegalStateException(e);
                    }
                }
            }
        });

        BackfillStatus status = backfill.run(job);

        assertThat(status.state()).isEqualTo(BackfillState.COMPLETED);
        // Round 1: attempt 0 raced (shared key) -> redo. Round 2: attempts 0 and 1 raced (one without, one with a
        // shared key) -> redo. Round 3: attempt 0 commits.
        assertThat(attempts).containsExactly(0, 0, 1, 0);
        List<Map<String, Object>> actual = KernelScan.rows(location);
        List<Map<String, Object>> streamed = actual.stream().filter(r -> "stream".equals(r.get("record_source"))).toList();
        assertThat(streamed).hasSize(3 + 4);
        assertThat(actual).containsExactlyInAnyOrderElementsOf(BackfillFixtures.referenceMerge(streamed,
                KernelScan.rows(source), TX_ID, BackfillFixtures::txFromHistory));
        assertThat(actual.stream().map(r -> BackfillFixtures.key(r, TX_ID))).doesNotHaveDuplicates();
        assertThat(tables().open(location).positions()).containsExactly(Map.entry(P0, 7L));
    }

    @Test
    void aDedupColumnTheTableDoesNotHaveFailsNamingIt() {
        Tables tables = tables();
        String source = BackfillFixtures.copy("tx_history", dir);
        String location = tables.defaultLocation("main", "fraud", "badkey");
        DeltaTable table = BackfillFixtures.createIngestion(tables, location, BackfillFixtures.TX_STREAM);
        append(table, earlyStream());
        long version = KernelScan.version(location);

        BackfillStatus status = new Backfill(tables, BackfillSettings.defaults(), at(CREATED))
                .run(new BackfillJob(location, source, List.of("value.txid"), CREATED));

        assertThat(status.state()).isEqualTo(BackfillState.FAILED);
        assertThat(status.message()).contains("value.txid").contains("transaction_id");
        assertThat(KernelScan.version(location)).isEqualTo(version);
    }
}
