package io.tributary.online;

import static io.tributary.online.OnlineFixtures.rowSchema;
import static io.tributary.online.OnlineFixtures.rows;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tributary.delta.DeltaTable;
import io.tributary.delta.OffsetRange;
import io.tributary.delta.PartitionKey;
import io.tributary.delta.Tables;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.postgresql.ds.PGSimpleDataSource;

/** The sync against a real Delta table and the machine's PostgreSQL. */
class TableSyncTest {
    static final Schema V1 = rowSchema(OnlineFixtures.VALUE_V1);
    static final Schema V2 = rowSchema(OnlineFixtures.VALUE_V2);
    static final PartitionKey P = new PartitionKey("t", 0);

    @TempDir
    Path dir;
    PGSimpleDataSource database = OnlineFixtures.database();
    String schema = OnlineFixtures.uniqueSchema();
    OnlineStore store;
    Tables tables;
    DeltaTable table;
    String location;
    long offset;

    @BeforeEach
    void setUp() {
        store = new OnlineStore(database, schema);
        tables = Tables.forWarehouse(dir.toString(), Optional.empty());
        location = tables.defaultLocation("c", "s", "orders_ingestion");
        table = tables.create(location, V1, Map.of(P, 0L));
    }

    @AfterEach
    void dropSchema() throws Exception {
        OnlineFixtures.dropSchema(database, schema);
    }

    SyncSpec spec(SyncPolicy policy) {
        return registered(new SyncSpec("id-" + policy, "c.s.orders_online", "orders_online_" + policy.name().toLowerCase(),
                location, List.of("value.user_id"), "stream_record_timestamp", policy));
    }

    SyncSpec registered(SyncSpec spec) {
        store.register(spec);
        return spec;
    }

    void append(List<GenericRecord> rows) {
        table.commit(List.of(table.writeDataFile(rows)), Map.of(P, new OffsetRange(offset, offset + rows.size())));
        offset += rows.size();
    }

    Map<String, Double> amounts(SyncSpec spec) {
        Map<String, Double> out = new java.util.TreeMap<>();
        for (Map<String, Object> r : store.rows(spec.table(), "value_user_id")) {
            out.put((String) r.get("value_user_id"), (Double) r.get("value_amount"));
        }
        return out;
    }

    @Test
    void theLatestRowPerKeyWinsAndNullKeysAreSkippedAndCounted() {
        SyncSpec spec = spec(SyncPolicy.TRIGGERED);
        TableSync sync = new TableSync(tables, store);
        // Within one commit and across commits; a later commit may carry an older row (a late record): it loses.
        append(rows(V1, 0, "u1", 1, 10, "u1", 2, 20, "u2", 5, 5, null, 9, 30));
        assertThat(sync.run(spec).toVersion()).isEqualTo(1);
        append(rows(V1, 4, "u1", 3, 30, "u2", 4, 1, "u3", 7, 7));
        append(rows(V1, 7, "u1", 4, 40, null, 1, 50));
        SyncResult r = sync.run(spec);

        assertThat(r.fromVersion()).isEqualTo(1);
        assertThat(r.toVersion()).isEqualTo(3);
        assertThat(amounts(spec)).containsExactly(Map.entry("u1", 4.0), Map.entry("u2", 5.0), Map.entry("u3", 7.0));
        SyncState state = store.state(spec.id());
        assertThat(state.version()).isEqualTo(3);
        assertThat(state.nullKeysSkipped()).isEqualTo(2);
        assertThat(state.rowsSynced()).isEqualTo(7);
        assertThat(state.state()).isEqualTo(SyncState.ONLINE);
        assertThat(state.columns()).extracting(c -> c.name() + " " + c.pgType()).contains("key text",
                "value_user_id text", "value_amount double precision", "stream_record_timestamp timestamptz",
                "kafka_offset bigint", "kafka_partition integer");
        // Nothing new: nothing done.
        assertThat(sync.run(spec).changed()).isFalse();
    }

    @Test
    void aCrashBetweenTheDeltaCommitAndThePostgresTransactionEndsWithExactlyTheRightRows() {
        SyncSpec spec = spec(SyncPolicy.CONTINUOUS);
        append(rows(V1, 0, "u1", 1, 10, null, 0, 1));
        new TableSync(tables, store).run(spec);
        append(rows(V1, 2, "u1", 2, 20, "u2", 3, 20, null, 0, 2));

        AtomicBoolean crash = new AtomicBoolean(true);
        TableSync crashing = new TableSync(tables, store, new SyncHooks() {
            @Override
            public void beforeCommit(SyncSpec s, long from, long to) {
                if (crash.get()) {
                    throw new IllegalStateException("killed between the rows and the commit");
                }
            }
        });
        assertThatThrownBy(() -> crashing.run(spec)).hasMessageContaining("killed");
        // The rows written before the crash were never visible: the old rows and version stand.
        assertThat(amounts(spec)).containsExactly(Map.entry("u1", 1.0));
        assertThat(store.state(spec.id()).version()).isEqualTo(1);

        crash.set(false);
        SyncResult again = crashing.run(spec);
        assertThat(again.fromVersion()).isEqualTo(1);
        assertThat(amounts(spec)).containsExactly(Map.entry("u1", 2.0), Map.entry("u2", 3.0));
        SyncState state = store.state(spec.id());
        // Counted once each, although the crashed attempt read them too.
        assertThat(state.nullKeysSkipped()).isEqualTo(2);
        assertThat(state.rowsSynced()).isEqualTo(3);
        assertThat(state.version()).isEqualTo(2);
    }

    @Test
    void aCompactionAddsNoRowsAndAMergeIsSyncedLikeAnyOtherCommit() {
        SyncSpec spec = spec(SyncPolicy.CONTINUOUS);
        TableSync sync = new TableSync(tables, store);
        append(rows(V1, 0, "u1", 1, 10));
        append(rows(V1, 1, "u2", 2, 10));
        append(rows(V1, 2, "u3", 3, 10));
        sync.run(spec);
        // A key synced, then its file compacted away before the next sync reads it: still synced, from its add.
        append(rows(V1, 3, "u4", 4, 10));
        assertThat(table.compact(64L * 1024 * 1024)).isPresent();
        SyncResult afterCompaction = sync.run(spec);
        assertThat(afterCompaction.rowsRead()).as("only u4's file; the compacted file adds no row").isEqualTo(1);
        assertThat(sync.run(spec).changed()).isFalse();

        // A backfill merge: history older than the stream's rows does not win; a key only history has is added.
        long base = table.status().version();
        table.commitExclusive(base, List.of(table.writeDataFile(rows(V1, 100, "u1", 100, 1, "u9", 9, 1))), Map.of());
        SyncResult merged = sync.run(spec);
        assertThat(merged.rowsRead()).isEqualTo(2);
        assertThat(amounts(spec)).containsExactly(Map.entry("u1", 1.0), Map.entry("u2", 2.0), Map.entry("u3", 3.0),
                Map.entry("u4", 4.0), Map.entry("u9", 9.0));
    }

    @Test
    void aSyncBehindTheVacuumRetentionRebuildsFromTheSnapshotAndGoesOnIncrementally() throws Exception {
        SyncSpec spec = spec(SyncPolicy.TRIGGERED);
        TableSync sync = new TableSync(tables, store);
        append(rows(V1, 0, "u1", 1, 10, "u2", 2, 10));
        sync.run(spec);
        // Not synced for longer than the retention: u2's update and u3 were compacted away and vacuum deleted the
        // files they were added in, so the commits after the synced version cannot be read as changes any more.
        append(rows(V1, 2, "u2", 5, 20));
        append(rows(V1, 3, "u3", 3, 10));
        java.util.Set<Path> before = parquetFiles();
        assertThat(table.compact(64L * 1024 * 1024)).isPresent();
        for (Path p : before) {
            java.nio.file.Files.delete(p);
        }

        SyncResult r = sync.run(spec);

        assertThat(r.rowsRead()).as("rebuilt: every row of the compacted file").isEqualTo(4);
        assertThat(r.toVersion()).isEqualTo(table.status().version());
        assertThat(amounts(spec)).containsExactly(Map.entry("u1", 1.0), Map.entry("u2", 5.0), Map.entry("u3", 3.0));
        append(rows(V1, 4, "u4", 4, 10));
        assertThat(sync.run(spec).rowsRead()).as("incremental again").isEqualTo(1);
        assertThat(amounts(spec)).containsEntry("u4", 4.0).hasSize(4);
    }

    /**
     * Another writer of a registered source cleaned up its log (Delta's log retention, {@code
     * delta.logRetentionDuration}, 30 days by default: commit files older than a checkpoint are deleted): the commits
     * after the synced version are no longer in the log, though the snapshot (from the checkpoint) holds every row.
     */
    @Test
    void aSyncBehindTheSourcesLogCleanupRebuildsFromTheSnapshotAndGoesOnIncrementally() throws Exception {
        SyncSpec spec = spec(SyncPolicy.TRIGGERED);
        TableSync sync = new TableSync(tables, store);
        append(rows(V1, 0, "u1", 1, 10, "u2", 2, 10));
        sync.run(spec);
        long synced = table.status().version();
        for (int i = 0; i < 11; i++) {
            append(rows(V1, 2 + i, "u" + (3 + i), 3 + i, 10));
        }
        Path log = dir.resolve("c/s/orders_ingestion/_delta_log");
        try (var files = java.nio.file.Files.list(log)) {
            assertThat(files.map(f -> f.getFileName().toString())).as("a checkpoint to clean up behind")
                    .anyMatch(n -> n.endsWith(".checkpoint.parquet"));
        }
        long checkpoint;
        try (var files = java.nio.file.Files.list(log)) {
            checkpoint = files.map(f -> f.getFileName().toString()).filter(n -> n.endsWith(".checkpoint.parquet"))
                    .mapToLong(n -> Long.parseLong(n.substring(0, 20))).max().orElseThrow();
        }
        assertThat(checkpoint).isGreaterThan(synced + 1);
        for (long v = 0; v < checkpoint; v++) {
            java.nio.file.Files.deleteIfExists(log.resolve(String.format("%020d.json", v)));
            java.nio.file.Files.deleteIfExists(log.resolve(String.format("%020d.crc", v)));
        }

        SyncResult r = sync.run(spec);

        assertThat(r.rowsRead()).as("rebuilt from every row of the snapshot").isEqualTo(13);
        assertThat(amounts(spec)).hasSize(13).containsEntry("u1", 1.0).containsEntry("u13", 13.0);
        assertThat(store.state(spec.id()).state()).isEqualTo(SyncState.ONLINE);
        append(rows(V1, 13, "u14", 14, 10));
        assertThat(sync.run(spec).rowsRead()).as("incremental again").isEqualTo(1);
        assertThat(amounts(spec)).containsEntry("u14", 14.0).hasSize(14);
    }

    @Test
    void aPostgresTableDroppedOutsideTributaryIsRebuiltAtTheNextSync() throws Exception {
        SyncSpec spec = spec(SyncPolicy.CONTINUOUS);
        TableSync sync = new TableSync(tables, store);
        append(rows(V1, 0, "u1", 1, 10, "u2", 2, 10));
        sync.run(spec);
        try (java.sql.Connection c = database.getConnection(); java.sql.Statement s = c.createStatement()) {
            s.execute("DROP TABLE " + store.qualified(spec.table()));
        }
        append(rows(V1, 2, "u2", 5, 20, "u3", 3, 10));

        SyncResult r = sync.run(spec);

        assertThat(r.rowsRead()).as("rebuilt from every row of the source").isEqualTo(4);
        assertThat(amounts(spec)).containsExactly(Map.entry("u1", 1.0), Map.entry("u2", 5.0), Map.entry("u3", 3.0));
        assertThat(store.state(spec.id()).state()).isEqualTo(SyncState.ONLINE);
        append(rows(V1, 4, "u4", 4, 10));
        assertThat(sync.run(spec).rowsRead()).as("incremental again").isEqualTo(1);
        assertThat(amounts(spec)).containsEntry("u4", 4.0).hasSize(4);
    }

    @Test
    void aPostgresTableChangedOutsideTributaryFailsNamingTheFixAndDroppingItRebuildsIt() throws Exception {
        SyncSpec spec = spec(SyncPolicy.CONTINUOUS);
        TableSync sync = new TableSync(tables, store);
        append(rows(V1, 0, "u1", 1, 10, "u2", 2, 10));
        sync.run(spec);
        long synced = store.state(spec.id()).version();
        try (java.sql.Connection c = database.getConnection(); java.sql.Statement s = c.createStatement()) {
            s.execute("ALTER TABLE " + store.qualified(spec.table()) + " DROP COLUMN value_amount");
        }
        append(rows(V1, 2, "u2", 5, 20, "u3", 3, 10));

        assertThatThrownBy(() -> sync.run(spec)).hasMessageContaining("value_amount")
                .hasMessageContaining("changed outside Tributary")
                .hasMessageContaining("drop it and the next sync rebuilds it from the source");
        assertThat(store.state(spec.id()).version()).as("nothing of the failed sync kept").isEqualTo(synced);

        try (java.sql.Connection c = database.getConnection(); java.sql.Statement s = c.createStatement()) {
            s.execute("DROP TABLE " + store.qualified(spec.table()));
        }
        sync.run(spec);
        assertThat(amounts(spec)).containsExactly(Map.entry("u1", 1.0), Map.entry("u2", 5.0), Map.entry("u3", 3.0));
    }

    @Test
    void aSourceWrittenAnewAtItsLocationIsSyncedFromItsBeginningNotFromTheOldVersion() throws Exception {
        SyncSpec spec = spec(SyncPolicy.CONTINUOUS);
        TableSync sync = new TableSync(tables, store);
        append(rows(V1, 0, "u1", 1, 10));
        append(rows(V1, 1, "u2", 2, 10));
        sync.run(spec);
        long synced = table.status().version();

        // Deleted and written anew: versions from 0 again, soon past the synced one. Reading "the commits after the
        // synced version" of this table would miss u3 and u4 without a word.
        recreate();
        append(rows(V1, 0, "u3", 3, 10));
        append(rows(V1, 1, "u4", 4, 10));
        append(rows(V1, 2, "u5", 5, 10));
        assertThat(table.status().version()).isGreaterThan(synced);
        sync.run(spec);
        assertThat(amounts(spec)).as("the copy is the new table's rows").containsExactly(Map.entry("u3", 3.0),
                Map.entry("u4", 4.0), Map.entry("u5", 5.0));

        // And a new table behind the synced version: rebuilt too, not refused.
        recreate();
        append(rows(V1, 0, "u6", 6, 10));
        sync.run(spec);
        assertThat(amounts(spec)).containsExactly(Map.entry("u6", 6.0));
        append(rows(V1, 1, "u7", 7, 10));
        assertThat(sync.run(spec).rowsRead()).as("incremental again").isEqualTo(1);
    }

    void recreate() throws java.io.IOException {
        try (var files = java.nio.file.Files.walk(dir)) {
            files.sorted(java.util.Comparator.reverseOrder()).filter(f -> !f.equals(dir)).forEach(f -> f.toFile()
                    .delete());
        }
        table = tables.create(location, V1, Map.of(P, 0L));
        offset = 0;
    }

    java.util.Set<Path> parquetFiles() throws java.io.IOException {
        try (var files = java.nio.file.Files.walk(dir)) {
            return files.filter(f -> f.toString().endsWith(".parquet") && !f.toString().contains("_delta_log"))
                    .collect(java.util.stream.Collectors.toSet());
        }
    }

    /**
     * PostgreSQL's text and jsonb cannot hold a NUL character, which a JSON value may carry ({@code "\u0000"}): one
     * such value failed every later sync of the table, every key waiting behind it. It arrives as U+FFFD, in a key, a
     * text column and inside a jsonb array, and the rows after it are synced.
     */
    @Test
    void aNulCharacterArrivesAsTheReplacementCharacterInsteadOfStoppingTheSync() {
        table = tables.create(tables.defaultLocation("c", "s", "nul_ingestion"), V2, Map.of(P, 0L));
        location = tables.defaultLocation("c", "s", "nul_ingestion");
        SyncSpec spec = registered(new SyncSpec("id-nul", "c.s.nul_online", "nul_online", location,
                List.of("value.user_id"), "stream_record_timestamp", SyncPolicy.CONTINUOUS));
        TableSync sync = new TableSync(tables, store);
        List<GenericRecord> rows = rows(V2, 0, "bad\0id", 1, 10, "u2", 2, 20);
        ((GenericRecord) rows.get(1).get("value")).put("country", "F\0R");
        ((GenericRecord) rows.get(1).get("value")).put("tags", List.of("x\0y", "\\u0000 as text"));
        append(rows);
        sync.run(spec);
        append(rows(V2, 2, "u3", 3, 30));
        sync.run(spec);

        List<Map<String, Object>> stored = store.rows(spec.table(), "value_user_id");
        assertThat(stored).extracting(r -> r.get("value_user_id")).containsExactly("bad\uFFFDid", "u2", "u3");
        assertThat(stored.get(1).get("value_country")).isEqualTo("F\uFFFDR");
        assertThat(stored.get(1).get("value_tags"))
                .isEqualTo(new OnlineStore.Json("[\"x\uFFFDy\", \"\\\\u0000 as text\"]"));
        assertThat(store.state(spec.id()).state()).isEqualTo(SyncState.ONLINE);
        assertThat(new OnlineLookup(store).lookup(spec.table(),
                List.of(store.state(spec.id()).column("value_user_id")), List.<String[]>of(new String[] {
                    "bad\uFFFDid"})).get(0)).containsEntry("value_amount", 1.0);
    }

    /**
     * PostgreSQL's B-tree takes an entry of at most 2,704 bytes: a longer key (a producer's 9 kB id) failed the
     * statement, and so every later sync. Such a row is skipped and counted (a key of two text parts by their sum),
     * and the keys at the limit and the rows after are synced.
     */
    @Test
    void aKeyTooLongForPostgresIndexIsSkippedAndCountedInsteadOfStoppingTheSync() {
        SyncSpec spec = registered(new SyncSpec("id-long", "c.s.orders_online", "orders_online_long", location,
                List.of("value.user_id", "key"), "stream_record_timestamp", SyncPolicy.CONTINUOUS));
        TableSync sync = new TableSync(tables, store);
        String random = new java.util.Random(7).ints(9_000, 'a', 'z' + 1)
                .collect(StringBuilder::new, StringBuilder::appendCodePoint, StringBuilder::append).toString();
        // The fixture's key column holds the user too: each key below is twice its user's bytes.
        String atLimit = random.substring(0, OnlineStore.MAX_KEY_BYTES / 2);
        String twoByteAtLimit = "é".repeat(OnlineStore.MAX_KEY_BYTES / 4);
        String twoByteOver = twoByteAtLimit + "a";
        append(rows(V1, 0, random, 1, 10, atLimit, 2, 10, twoByteOver, 3, 10, twoByteAtLimit, 4, 10, "u1", 5, 10));
        SyncResult first = sync.run(spec);
        append(rows(V1, 5, "u2", 6, 20));
        sync.run(spec);

        assertThat(first.oversizedKeysSkipped()).isEqualTo(2);
        assertThat(amounts(spec)).containsOnlyKeys(atLimit, twoByteAtLimit, "u1", "u2");
        SyncState state = store.state(spec.id());
        assertThat(state.state()).isEqualTo(SyncState.ONLINE);
        assertThat(state.oversizedKeysSkipped()).isEqualTo(2);
        assertThat(state.rowsSynced()).isEqualTo(4);
    }

    /**
     * PostgreSQL keeps a row in one 8 kB page, and only long variable-length values can move out of it: a row of 1,100
     * bigints cannot be stored ("row is too big", SQLSTATE 54000) although the table can be created. One such row in a
     * source failed every sync of the table, every row after it waiting behind it. Now it is skipped and counted, and
     * the rows around it, in its chunk and after, are synced.
     */
    @Test
    void aRowTooBigForAPostgresPageIsSkippedAndCountedInsteadOfStoppingTheSync() {
        Schema schema = wide(1_100);
        String at = tables.defaultLocation("c", "s", "dense_ingestion");
        DeltaTable t = tables.create(at, schema, Map.of(P, 0L));
        List<GenericRecord> rows = new ArrayList<>();
        for (String key : List.of("a", "full", "b", "full2", "c")) {
            GenericRecord r = new org.apache.avro.generic.GenericData.Record(schema);
            r.put("key", key);
            r.put("stream_record_timestamp", 1L);
            for (int i = 0; i < 1_100; i++) {
                if (key.startsWith("full") || i % 100 == 0) {
                    r.put("f" + i, (long) i);
                }
            }
            rows.add(r);
        }
        t.commit(List.of(t.writeDataFile(rows)), Map.of(P, new OffsetRange(0, rows.size())));
        SyncSpec spec = registered(new SyncSpec("id-dense", "c.s.dense_online", "dense_online", at, List.of("key"),
                "stream_record_timestamp", SyncPolicy.CONTINUOUS));
        TableSync sync = new TableSync(tables, store);
        SyncResult first = sync.run(spec);
        GenericRecord later = new org.apache.avro.generic.GenericData.Record(schema);
        later.put("key", "d");
        later.put("stream_record_timestamp", 2L);
        t.commit(List.of(t.writeDataFile(List.of(later))), Map.of(P, new OffsetRange(rows.size(), rows.size() + 1)));
        sync.run(spec);

        assertThat(first.oversizedRowsSkipped()).isEqualTo(2);
        assertThat(store.rows("dense_online", "key")).extracting(r -> r.get("key")).containsExactly("a", "b", "c", "d");
        SyncState state = store.state(spec.id());
        assertThat(state.state()).isEqualTo(SyncState.ONLINE);
        assertThat(state.oversizedRowsSkipped()).isEqualTo(2);
        assertThat(state.rowsSynced()).isEqualTo(4);
    }

    /** A source of {@code fields} long columns besides its key and timestamp. */
    static Schema wide(int fields) {
        StringBuilder b = new StringBuilder("{\"type\":\"record\",\"name\":\"Row\",\"namespace\":\"io.tributary.row\","
                + "\"fields\":[{\"name\":\"key\",\"type\":\"string\"},{\"name\":\"stream_record_timestamp\","
                + "\"type\":{\"type\":\"long\",\"logicalType\":\"timestamp-micros\"}}");
        for (int i = 0; i < fields; i++) {
            b.append(",{\"name\":\"f").append(i).append("\",\"type\":[\"null\",\"long\"],\"default\":null}");
        }
        return new Schema.Parser().parse(b.append("]}").toString());
    }

    /**
     * PostgreSQL's tables hold at most 1,600 columns, and a stream's schema may have up to 10,000: a wider source was
     * synced and failed at every commit ("tables can have at most 1600 columns"). Now it stops at once saying why (the
     * create is a 400 with the same words), and so does a source that grows past the limit after its first syncs.
     */
    @Test
    void aSourceWiderThanAPostgresTableStopsTheSyncSayingWhy() {
        Schema atLimit = wide(OnlineColumns.MAX_COLUMNS - 2);
        String at = tables.defaultLocation("c", "s", "wide_ingestion");
        DeltaTable t = tables.create(at, atLimit, Map.of(P, 0L));
        GenericRecord r = new org.apache.avro.generic.GenericData.Record(atLimit);
        r.put("key", "a");
        r.put("stream_record_timestamp", 1L);
        r.put("f7", 7L);
        t.commit(List.of(t.writeDataFile(List.of(r))), Map.of(P, new OffsetRange(0, 1)));
        SyncSpec spec = registered(new SyncSpec("id-wide", "c.s.wide_online", "wide_online", at, List.of("key"),
                "stream_record_timestamp", SyncPolicy.CONTINUOUS));
        TableSync sync = new TableSync(tables, store);
        sync.run(spec);
        assertThat(store.rowCount("wide_online")).isEqualTo(1);

        Schema over = wide(OnlineColumns.MAX_COLUMNS - 1);
        assertThat(t.evolveSchema(over)).isPresent();
        GenericRecord later = new org.apache.avro.generic.GenericData.Record(over);
        later.put("key", "b");
        later.put("stream_record_timestamp", 2L);
        t.commit(List.of(t.writeDataFile(List.of(later))), Map.of(P, new OffsetRange(1, 2)));
        assertThatThrownBy(() -> sync.run(spec)).isInstanceOf(SyncException.class)
                .hasMessageContaining("has 1601 columns").hasMessageContaining("at most 1600");
        assertThat(store.rowCount("wide_online")).as("nothing of it written").isEqualTo(1);
    }

    @Test
    void aSchemaThatGainsAColumnAddsItAndOtherChangesStopTheSync() {
        SyncSpec spec = spec(SyncPolicy.TRIGGERED);
        TableSync sync = new TableSync(tables, store);
        append(rows(V1, 0, "u1", 1, 10));
        sync.run(spec);
        assertThat(table.evolveSchema(V2)).isPresent();
        List<GenericRecord> later = rows(V2, 1, "u2", 2, 20);
        ((GenericRecord) later.get(0).get("value")).put("country", "FR");
        ((GenericRecord) later.get(0).get("value")).put("tags", List.of("a", "b"));
        append(later);
        sync.run(spec);

        List<Map<String, Object>> rows = store.rows(spec.table(), "value_user_id");
        assertThat(rows.get(0).get("value_country")).isNull();
        assertThat(rows.get(1).get("value_country")).isEqualTo("FR");
        assertThat(rows.get(1).get("value_tags")).isEqualTo(new OnlineStore.Json("[\"a\", \"b\"]"));
        assertThat(store.state(spec.id()).column("value_country").pgType()).isEqualTo("text");
    }

    @Test
    void snapshotRebuildsAndSwapsTheTableIn() {
        SyncSpec spec = spec(SyncPolicy.SNAPSHOT);
        TableSync sync = new TableSync(tables, store);
        append(rows(V1, 0, "u1", 1, 10, "u2", 2, 10, null, 0, 1));
        sync.run(spec);
        append(rows(V1, 3, "u1", 5, 20));
        SyncResult r = sync.run(spec);
        assertThat(r.rowsRead()).as("a rebuild reads every row").isEqualTo(3);
        assertThat(amounts(spec)).containsExactly(Map.entry("u1", 5.0), Map.entry("u2", 2.0));
        SyncState state = store.state(spec.id());
        assertThat(state.rowsSynced()).isEqualTo(3);
        assertThat(state.nullKeysSkipped()).isEqualTo(1);
        assertThat(store.rowCount(spec.table())).isEqualTo(2);
        // A third rebuild works too (the swapped-in table's index names were reset).
        sync.run(spec);
        assertThat(store.rowCount(spec.table())).isEqualTo(2);
    }

    @Test
    void lookupsReturnRowsInKeyOrderAndNullForMissingAndNullKeys() {
        SyncSpec spec = spec(SyncPolicy.TRIGGERED);
        append(rows(V1, 0, "u1", 1, 10, "u2", 2, 10));
        new TableSync(tables, store).run(spec);
        List<SyncState.StoredColumn> key = List.of(store.state(spec.id()).column("value_user_id"));
        OnlineLookup lookup = new OnlineLookup(store);

        List<Map<String, Object>> many = lookup.lookup(spec.table(), key,
                List.of(new String[] {"u2"}, new String[] {"nope"}, new String[] {null}, new String[] {"u1"}));
        assertThat(many).hasSize(4);
        assertThat(many.get(0).get("value_amount")).isEqualTo(2.0);
        assertThat(many.get(1)).isNull();
        assertThat(many.get(2)).isNull();
        assertThat(many.get(3).get("value_amount")).isEqualTo(1.0);
        assertThat(lookup.lookup(spec.table(), key, List.<String[]>of(new String[] {"u1"})).get(0))
                .containsEntry("value_user_id", "u1").containsEntry("kafka_offset", 0L);
        assertThat(lookup.lookup(spec.table(), key, List.<String[]>of(new String[] {"x"})).get(0)).isNull();
    }

    @Test
    void aKeyThatIsNotAColumnIsRefusedNamingIt() {
        SyncSpec bad = registered(new SyncSpec("bad", "c.s.bad", "bad", location, List.of("value.nope"), null,
                SyncPolicy.TRIGGERED));
        append(rows(V1, 0, "u1", 1, 10));
        assertThatThrownBy(() -> new TableSync(tables, store).run(bad)).isInstanceOf(SyncException.class)
                .hasMessageContaining("'value.nope' is not a column");
    }

    @Test
    void everyColumnTypeArrivesWithItsValueAndANullStructNullsItsFields() throws Exception {
        Schema types = new Schema.Parser().parse("""
                {"type":"record","name":"Row","namespace":"io.tributary.row","fields":[
                  {"name":"key","type":"string"},
                  {"name":"stream_record_timestamp","type":{"type":"long","logicalType":"timestamp-micros"}},
                  {"name":"flag","type":["null","boolean"]},
                  {"name":"small","type":["null","int"]},
                  {"name":"big","type":["null","long"]},
                  {"name":"ratio","type":["null","float"]},
                  {"name":"amount","type":["null","double"]},
                  {"name":"price","type":["null",{"type":"bytes","logicalType":"decimal","precision":12,"scale":3}]},
                  {"name":"raw","type":["null","bytes"]},
                  {"name":"day","type":["null",{"type":"int","logicalType":"date"}]},
                  {"name":"tags","type":["null",{"type":"array","items":"string"}]},
                  {"name":"counts","type":["null",{"type":"map","values":"long"}]},
                  {"name":"inner","type":["null",{"type":"record","name":"Inner","fields":[
                    {"name":"name","type":["null","string"]}]}]}
                ]}""");
        String at = tables.defaultLocation("c", "s", "types_ingestion");
        DeltaTable t = tables.create(at, types, Map.of(P, 0L));
        Schema inner = types.getField("inner").schema().getTypes().get(1);
        GenericRecord full = new org.apache.avro.generic.GenericData.Record(types);
        full.put("key", "a");
        // Far beyond 2^53 microseconds: sent as seconds and microseconds apart, it still arrives exactly.
        full.put("stream_record_timestamp", 253_402_300_799_999_999L);
        full.put("flag", true);
        full.put("small", -7);
        full.put("big", 9_007_199_254_740_993L);
        full.put("ratio", 0.5f);
        full.put("amount", -1.25e300);
        full.put("price", java.nio.ByteBuffer.wrap(new java.math.BigDecimal("-123456789.125").unscaledValue()
                .toByteArray()));
        full.put("raw", java.nio.ByteBuffer.wrap(new byte[] {0, 1, (byte) 0xff}));
        full.put("day", -1);
        full.put("tags", List.of("x", "y \"quoted\""));
        full.put("counts", Map.of("n", 3L));
        GenericRecord named = new org.apache.avro.generic.GenericData.Record(inner);
        named.put("name", "in");
        full.put("inner", named);
        GenericRecord empty = new org.apache.avro.generic.GenericData.Record(types);
        empty.put("key", "b");
        empty.put("stream_record_timestamp", -1L);
        t.commit(List.of(t.writeDataFile(List.of(full, empty))), Map.of(P, new OffsetRange(0, 2)));
        SyncSpec spec = registered(new SyncSpec("id-types", "c.s.types_online", "types_online", at, List.of("key"),
                "stream_record_timestamp", SyncPolicy.TRIGGERED));

        new TableSync(tables, store).run(spec);

        List<String> rows = new java.util.ArrayList<>();
        try (java.sql.Connection c = database.getConnection(); java.sql.Statement s = c.createStatement()) {
            s.execute("SET TIME ZONE 'UTC'");
            java.sql.ResultSet rs = s.executeQuery("SELECT concat_ws('|', key, "
                        + "stream_record_timestamp, flag, small, big, ratio, amount, price, encode(raw, 'hex'), day, "
                        + "tags, counts, coalesce(inner_name, 'NULL')) FROM " + store.qualified("types_online")
                        + " ORDER BY key");
            while (rs.next()) {
                rows.add(rs.getString(1));
            }
        }
        assertThat(rows).containsExactly(
                "a|9999-12-31 23:59:59.999999+00|t|-7|9007199254740993|0.5|-1.25e+300|-123456789.125|0001ff"
                        + "|1969-12-31|[\"x\", \"y \\\"quoted\\\"\"]|{\"n\": 3}|in",
                "b|1969-12-31 23:59:59.999999+00|NULL");
    }

    /**
     * An Avro {@code timestamp-micros} or {@code date} may hold any long or int; PostgreSQL's timestamps start in
     * 4714 BC and its dates end in 5874897 AD. One such value failed every later sync ("timestamp out of range"):
     * beyond the range it is stored as -infinity or infinity, which still order as the values did, and the bounds
     * themselves arrive as they are. The timestamp is the timeseries key here: the row still wins or loses by it.
     */
    @Test
    void aTimestampOrDateBeyondPostgresRangeIsStoredAsInfinityInsteadOfStoppingTheSync() throws Exception {
        Schema times = new Schema.Parser().parse("""
                {"type":"record","name":"Row","namespace":"io.tributary.row","fields":[
                  {"name":"key","type":"string"},
                  {"name":"ts","type":["null",{"type":"long","logicalType":"timestamp-micros"}]},
                  {"name":"local","type":["null",{"type":"long","logicalType":"local-timestamp-micros"}]},
                  {"name":"day","type":["null",{"type":"int","logicalType":"date"}]}
                ]}""");
        String at = tables.defaultLocation("c", "s", "times_ingestion");
        DeltaTable t = tables.create(at, times, Map.of(P, 0L));
        java.util.function.BiFunction<String, Object[], GenericRecord> row = (key, v) -> {
            GenericRecord r = new org.apache.avro.generic.GenericData.Record(times);
            r.put("key", key);
            r.put("ts", v[0]);
            r.put("local", v[1]);
            r.put("day", v[2]);
            return r;
        };
        t.commit(List.of(t.writeDataFile(List.of(
                row.apply("early", new Object[] {Long.MIN_VALUE, TableSync.PG_MIN_MICROS - 1, Integer.MIN_VALUE}),
                row.apply("bounds", new Object[] {TableSync.PG_MIN_MICROS, 253_402_300_799_999_999L,
                    TableSync.PG_MAX_DAYS}),
                row.apply("late", new Object[] {0L, 0L, Integer.MAX_VALUE}),
                row.apply("min-days", new Object[] {null, null, TableSync.PG_MIN_DAYS - 1})))),
                Map.of(P, new OffsetRange(0, 4)));
        SyncSpec spec = registered(new SyncSpec("id-times", "c.s.times_online", "times_online", at, List.of("key"),
                "ts", SyncPolicy.CONTINUOUS));
        TableSync sync = new TableSync(tables, store);
        sync.run(spec);
        // A later row of "early" whose timestamp PostgreSQL can hold is newer than -infinity: it wins.
        t.commit(List.of(t.writeDataFile(List.of(row.apply("early", new Object[] {1L, 1L, 1})))),
                Map.of(P, new OffsetRange(4, 5)));
        sync.run(spec);

        List<String> rows = new java.util.ArrayList<>();
        try (java.sql.Connection c = database.getConnection(); java.sql.Statement s = c.createStatement()) {
            s.execute("SET TIME ZONE 'UTC'");
            java.sql.ResultSet rs = s.executeQuery("SELECT concat_ws('|', key, ts, local, day) FROM "
                    + store.qualified("times_online") + " ORDER BY key");
            while (rs.next()) {
                rows.add(rs.getString(1));
            }
        }
        assertThat(rows).containsExactly(
                "bounds|4714-11-24 00:00:00+00 BC|9999-12-31 23:59:59.999999|5874897-12-31",
                "early|1970-01-01 00:00:00.000001+00|1970-01-01 00:00:00.000001|1970-01-02",
                "late|1970-01-01 00:00:00+00|1970-01-01 00:00:00|infinity",
                "min-days|-infinity");
        assertThat(store.state(spec.id()).state()).isEqualTo(SyncState.ONLINE);
    }

    @Test
    void aKeyOfTwoColumnsKeepsTheLatestRowPerPairAndCountsANullInEitherPart() {
        SyncSpec spec = registered(new SyncSpec("id-pair", "c.s.orders_online", "orders_online_pair", location,
                List.of("value.user_id", "kafka_partition"), "stream_record_timestamp", SyncPolicy.TRIGGERED));
        List<GenericRecord> batch = rows(V1, 0, "u1", 1, 10, "u1", 2, 20, "u1", 3, 5, "u2", 4, 1, null, 5, 1,
                "u3", 6, 1);
        batch.get(1).put("kafka_partition", 1); // (u1, 1) is another key than (u1, 0)
        batch.get(5).put("kafka_partition", null);
        append(batch);

        new TableSync(tables, store).run(spec);

        List<String> stored = store.rows(spec.table(), "value_amount").stream()
                .map(r -> r.get("value_user_id") + "/" + r.get("kafka_partition") + "=" + r.get("value_amount"))
                .toList();
        // (u1, 0): the row at second 10 beats the later-read one at second 5.
        assertThat(stored).containsExactly("u1/0=1.0", "u1/1=2.0", "u2/0=4.0");
        assertThat(store.state(spec.id()).nullKeysSkipped()).isEqualTo(2);
    }
}
