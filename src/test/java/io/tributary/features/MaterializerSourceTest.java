package io.tributary.features;

import static io.tributary.online.OnlineFixtures.rowSchema;
import static io.tributary.online.OnlineFixtures.rows;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tributary.delta.ChangesUnavailableException;
import io.tributary.delta.DeltaTable;
import io.tributary.delta.OffsetRange;
import io.tributary.delta.PartitionKey;
import io.tributary.delta.TableChanges;
import io.tributary.delta.Tables;
import io.tributary.online.OnlineFixtures;
import io.tributary.online.OnlineStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.postgresql.ds.PGSimpleDataSource;

/** The materializer against a source that changes under it, on a real Delta table and the machine's PostgreSQL. */
class MaterializerSourceTest {
    static final Schema V1 = rowSchema(OnlineFixtures.VALUE_V1);
    static final PartitionKey P = new PartitionKey("t", 0);

    @TempDir
    Path dir;
    PGSimpleDataSource database = OnlineFixtures.database();
    String schema = OnlineFixtures.uniqueSchema();
    Tables tables;
    String location;
    DeltaTable source;
    long offset;
    FeatureStore store;
    FeatureViewSpec spec;

    @BeforeEach
    void setUp() {
        tables = Tables.forWarehouse(dir.resolve("wh").toString(), Optional.empty());
        location = tables.defaultLocation("c", "s", "tx_ingestion");
        source = tables.create(location, V1, Map.of(P, 0L));
        append(rows(V1, 0, "u1", 1, 10));
        store = new FeatureStore(new OnlineStore(database, schema));
        try (TableChanges changes = tables.changesSince(location, -1)) {
            spec = FeatureViewCompiler.compile("view-1", "c.s.user_features", location,
                    tables.defaultLocation("c", "s", "user_features"), "fv_view1",
                    new FeatureViewDefinition(List.of("value.user_id"), null, "1h",
                            List.of(new FeatureViewDefinition.FeatureDefinition("n", "count", null,
                                    new FeatureViewDefinition.WindowDefinition(
                                            new FeatureViewDefinition.Span("10m", null, null), null, null)))),
                    changes.columns());
        }
        store.register(spec);
        new OfflineFeatures(tables).create(spec);
    }

    @AfterEach
    void dropSchema() throws Exception {
        OnlineFixtures.dropSchema(database, schema);
    }

    void append(List<GenericRecord> rows) {
        source.commit(List.of(source.writeDataFile(rows)), Map.of(P, new OffsetRange(offset, offset + rows.size())));
        offset += rows.size();
    }

    void recreate() throws Exception {
        Path root = dir.resolve("wh/c/s/tx_ingestion");
        try (var files = Files.walk(root)) {
            files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        }
        source = tables.create(location, V1, Map.of(P, 0L));
        offset = 0;
    }

    @Test
    void aSourceWrittenAnewAtItsLocationStopsTheViewInsteadOfSkippingItsFirstCommits() throws Exception {
        Materializer materializer = new Materializer(tables, store, MaterializeHooks.NONE);
        append(rows(V1, 1, "u2", 2, 20));
        materializer.run(spec);
        FeatureState before = store.state(spec.id());
        assertThat(before.recordsRead()).isEqualTo(2);

        // Versions from 0 again, soon past the consumed one: "the commits after it" would be only u5's.
        recreate();
        append(rows(V1, 0, "u3", 3, 30));
        append(rows(V1, 1, "u4", 4, 40));
        append(rows(V1, 2, "u5", 5, 50));
        assertThat(source.status().version()).isGreaterThan(before.version());

        assertThatThrownBy(() -> materializer.run(spec)).isInstanceOf(ChangesUnavailableException.class)
                .hasMessageContaining("was replaced by another one").hasMessageContaining("table id changed");
        FeatureState after = store.state(spec.id());
        assertThat(after.version()).as("nothing consumed").isEqualTo(before.version());
        assertThat(after.recordsRead()).isEqualTo(2);

        // Behind the consumed version: the same, not a round that moves the consumed version back.
        recreate();
        append(rows(V1, 0, "u6", 6, 60));
        assertThatThrownBy(() -> materializer.run(spec)).isInstanceOf(ChangesUnavailableException.class)
                .hasMessageContaining("its latest version is 1");
        assertThat(store.state(spec.id()).version()).isEqualTo(before.version());
    }

    /** A view with a rolling feature: a 10 m count at 10 s precision. */
    FeatureViewSpec rollingView(String id) {
        try (TableChanges changes = tables.changesSince(location, -1)) {
            FeatureViewSpec rolling = FeatureViewCompiler.compile(id, "c.s." + id, location,
                    tables.defaultLocation("c", "s", id), "fv_" + id,
                    new FeatureViewDefinition(List.of("value.user_id"), null, "0s",
                            List.of(new FeatureViewDefinition.FeatureDefinition("n", "count", null,
                                    new FeatureViewDefinition.WindowDefinition(null, null,
                                            new FeatureViewDefinition.Span("10m", null, "10s"))))),
                    changes.columns());
            store.register(rolling);
            new OfflineFeatures(tables).create(rolling);
            return rolling;
        }
    }

    /**
     * A rolling feature's offline rows are its changes only (SPEC 10.3), marked in the table by its first append. An
     * offline table an earlier release wrote, a row at every precision step and no mark, is not appended to in the
     * other form (as-of reads would mix the two): the round stops the view, saying to create it again; as-of reads of
     * it keep the earlier rule, the row ending at the step asked exactly.
     */
    @Test
    void anOfflineTableWithARollingRowAtEveryStepIsNotContinuedInTheOtherForm() {
        Materializer materializer = new Materializer(tables, store, MaterializeHooks.NONE);
        FeatureViewSpec marked = rollingView("marked");
        append(rows(V1, 1, "u1", 1, 1_000));
        materializer.run(marked);
        assertThat(OfflineFeatures.rollingChanges(tables.open(marked.offlineLocation()))).isTrue();
        // Table maintenance's compaction keeps the mark (Delta keeps a domain until it is removed), and the next round
        // appends in the same form.
        append(rows(V1, 2, "u2", 1, 1_100));
        materializer.run(marked);
        assertThat(tables.open(marked.offlineLocation()).compact(128L << 20)).isPresent();
        assertThat(OfflineFeatures.rollingChanges(tables.open(marked.offlineLocation()))).isTrue();
        append(rows(V1, 3, "u2", 1, 1_200));
        assertThat(materializer.run(marked).toVersion()).isEqualTo(source.version());
        // u1's records at 10 s and 1,000 s (the watermark): the first's tile enters the window at 20 s and leaves it
        // at 620 s, two rows rather than one per step, and a step in between reads the count 1 from the first.
        long t0 = io.tributary.online.OnlineFixtures.T0.toEpochMilli();
        FeatureLookup lookup = new FeatureLookup(store, tables);
        assertThat(lookup.lookup(marked, List.of(new FeatureLookup.Key(EntityKeys.of(List.of("u1")),
                java.time.Instant.ofEpochMilli(t0 + 300_000))), java.time.Instant.now()).get(0))
                .containsEntry("n", 1L);

        FeatureViewSpec old = rollingView("old");
        DeltaTable offline = tables.open(old.offlineLocation());
        long end = t0 + 20_000;
        offline.commitExclusive(offline.version(), List.of(offline.writeDataFile(List.of(
                OfflineFeatures.row(OfflineFeatures.schema(old), old, List.of("u1"), end - 600_000, end,
                        new Object[] {1L})))), Map.of(OfflineFeatures.DOMAIN, new OfflineFeatures.Progress(0, end, 0)
                                .json()));
        assertThat(OfflineFeatures.rollingChanges(tables.open(old.offlineLocation()))).isFalse();
        String u1 = EntityKeys.of(List.of("u1"));
        assertThat(lookup.lookup(old, List.of(new FeatureLookup.Key(u1, java.time.Instant.ofEpochMilli(end)),
                new FeatureLookup.Key(u1, java.time.Instant.ofEpochMilli(end + 30_000))), java.time.Instant.now()))
                .containsExactly(Map.of("n", 1L), null);
        assertThatThrownBy(() -> materializer.run(old)).isInstanceOf(UnsupportedOperationException.class)
                .hasMessageContaining("at every precision step")
                .hasMessageContaining("delete the feature view and create it again");
    }

    /**
     * A rolling feature has no newest window online (a first round over 1M entities wrote 1M such rows): as of now it
     * is combined from the tiles, which hold every tile of a window ending after the watermark less one precision step,
     * also where its window is final; a row an earlier release left there (no longer kept up to date) is passed over.
     */
    @Test
    void aRollingFeatureAsOfNowComesFromItsTilesWithNoNewestWindowStored() throws Exception {
        Materializer materializer = new Materializer(tables, store, MaterializeHooks.NONE);
        FeatureViewSpec rolling = rollingView("rolling"); // count over 10 m at 10 s precision, no lateness
        // u1 at 10 s (set up) and 400 s, u2 at 100 s: the watermark is 400 s, and u1's and u2's first tiles entered
        // their windows at 20 s and 110 s, changes a final window holds.
        append(rows(V1, 1, "u2", 1, 100, "u1", 1, 400));
        materializer.run(rolling);
        assertThat(store.state(rolling.id()).watermark()).isEqualTo(OnlineFixtures.T0.toEpochMilli() + 400_000);
        try (java.sql.Connection c = database.getConnection(); java.sql.Statement st = c.createStatement()) {
            try (java.sql.ResultSet rs = st.executeQuery("SELECT count(*) FROM " + OnlineStore.quote(schema)
                    + ".fv_rolling_latest")) {
                rs.next();
                assertThat(rs.getLong(1)).as("newest windows stored for a rolling feature").isZero();
            }
            Aggregate seven = new Aggregate(FeatureFunction.COUNT);
            for (int i = 0; i < 7; i++) {
                seven.add(null, OnlineFixtures.T0.toEpochMilli(), true);
            }
            try (java.sql.PreparedStatement p = c.prepareStatement("INSERT INTO " + OnlineStore.quote(schema)
                    + ".fv_rolling_latest VALUES (?, 0, ?, ?, ?)")) {
                p.setString(1, EntityKeys.of(List.of("u2")));
                p.setLong(2, OnlineFixtures.T0.toEpochMilli() - 490_000);
                p.setLong(3, OnlineFixtures.T0.toEpochMilli() + 110_000);
                p.setBytes(4, seven.toBytes());
                p.executeUpdate();
            }
        }
        // Now at 405 s: its step, 400 s, is at the watermark (final): the window [-200 s, 400 s) holds u1's record at
        // 10 s (not the one at 400 s) and u2's at 100 s.
        List<Map<String, Object>> now = new FeatureLookup(store, tables).lookup(rolling,
                List.of(new FeatureLookup.Key(EntityKeys.of(List.of("u1")), null),
                        new FeatureLookup.Key(EntityKeys.of(List.of("u2")), null)),
                OnlineFixtures.T0.plusSeconds(405));
        assertThat(now).extracting(m -> m == null ? null : m.get("n")).containsExactly(1L, 1L);
        // At 725 s (step 720 s, after the watermark), u1's 10 s record has left its window, its 400 s one not; u2's
        // has left too: its tile is still held (none expires at this watermark), the window holds nothing.
        now = new FeatureLookup(store, tables).lookup(rolling,
                List.of(new FeatureLookup.Key(EntityKeys.of(List.of("u1")), null),
                        new FeatureLookup.Key(EntityKeys.of(List.of("u2")), null)),
                OnlineFixtures.T0.plusSeconds(725));
        assertThat(now.get(0)).containsEntry("n", 1L);
        assertThat(now.get(1)).containsEntry("n", null);
    }

    /**
     * An entity with a new final window for each tumbling and sliding feature gets one row of newest windows, not one
     * per feature (a first round writes that for most entities); a later round that makes only some of them final
     * writes those apart, and a lookup takes per feature the window with the greater end of the two rows.
     */
    @Test
    void anEntitysNewestWindowsOfOneRoundAreOneRow() throws Exception {
        Materializer materializer = new Materializer(tables, store, MaterializeHooks.NONE);
        FeatureViewSpec both;
        try (TableChanges changes = tables.changesSince(location, -1)) {
            both = FeatureViewCompiler.compile("both", "c.s.both", location, tables.defaultLocation("c", "s", "both"),
                    "fv_both", new FeatureViewDefinition(List.of("value.user_id"), null, "0s", List.of(
                            new FeatureViewDefinition.FeatureDefinition("t", "count", null,
                                    new FeatureViewDefinition.WindowDefinition(
                                            new FeatureViewDefinition.Span("10m", null, null), null, null)),
                            new FeatureViewDefinition.FeatureDefinition("s", "count", null,
                                    new FeatureViewDefinition.WindowDefinition(null,
                                            new FeatureViewDefinition.Span("20m", "10m", null), null)))),
                    changes.columns());
        }
        store.register(both);
        new OfflineFeatures(tables).create(both);
        // u1 at 10 s (set up) and 700 s, u2 at -100 s and 100 s: the watermark 700 s makes [0, 10 m) and
        // [-10 m, 10 m) final for both.
        append(rows(V1, 1, "u2", 1, -100, "u2", 1, 100, "u1", 1, 700));
        materializer.run(both);
        assertThat(newestRows()).containsExactlyInAnyOrder("[\"u1\"] -1", "[\"u2\"] -1");
        // u1 at 1,300 s: u1's [10 m, 20 m) and [0, 20 m) become final, u2's [0, 20 m) only (its tumbling windows
        // are all final already): a row of u2's sliding window alone.
        append(rows(V1, 4, "u1", 1, 1_300));
        materializer.run(both);
        assertThat(newestRows()).containsExactlyInAnyOrder("[\"u1\"] -1", "[\"u2\"] -1", "[\"u2\"] 1");
        List<Map<String, Object>> now = new FeatureLookup(store, tables).lookup(both,
                List.of(new FeatureLookup.Key(EntityKeys.of(List.of("u1")), null),
                        new FeatureLookup.Key(EntityKeys.of(List.of("u2")), null)),
                OnlineFixtures.T0.plusSeconds(1_305));
        assertThat(now.get(0)).containsEntry("t", 1L).containsEntry("s", 2L);
        // u2's sliding feature: [0, 20 m) holds 1 record (its own row), not [-10 m, 10 m)'s 2 (the row of both).
        assertThat(now.get(1)).containsEntry("t", 1L).containsEntry("s", 1L);
    }

    /** The rows of view "both"'s newest windows: entity and feature. */
    private List<String> newestRows() throws Exception {
        List<String> out = new java.util.ArrayList<>();
        try (java.sql.Connection c = database.getConnection(); java.sql.Statement st = c.createStatement();
                java.sql.ResultSet rs = st.executeQuery("SELECT entity, feature FROM " + OnlineStore.quote(schema)
                        + ".fv_both_latest")) {
            while (rs.next()) {
                out.add(rs.getString(1) + " " + rs.getShort(2));
            }
        }
        return out;
    }

    /** A writer cleaned up the source's log past the consumed version: the view stops saying so, not retried. */
    @Test
    void aSourceLogCleanedUpPastTheConsumedVersionStopsTheView() throws Exception {
        Materializer materializer = new Materializer(tables, store, MaterializeHooks.NONE);
        materializer.run(spec);
        long consumed = store.state(spec.id()).version();
        for (int i = 0; i < 11; i++) {
            append(rows(V1, 1, "u" + (2 + i), 2, 20 + i));
        }
        Path log = dir.resolve("wh/c/s/tx_ingestion/_delta_log");
        long checkpoint;
        try (var files = Files.list(log)) {
            checkpoint = files.map(f -> f.getFileName().toString()).filter(n -> n.endsWith(".checkpoint.parquet"))
                    .mapToLong(n -> Long.parseLong(n.substring(0, 20))).max().orElseThrow();
        }
        assertThat(checkpoint).isGreaterThan(consumed + 1);
        for (long v = 0; v < checkpoint; v++) {
            Files.deleteIfExists(log.resolve(String.format("%020d.json", v)));
            Files.deleteIfExists(log.resolve(String.format("%020d.crc", v)));
        }

        assertThatThrownBy(() -> materializer.run(spec)).isInstanceOf(ChangesUnavailableException.class)
                .hasMessageContaining("are no longer in its log");
        assertThat(store.state(spec.id()).version()).isEqualTo(consumed);
    }

    /**
     * A round needs the source's and the offline table's latest versions only; {@code status()} also walks every data
     * file's statistics, a cost that grew with the tables (a file a second) on every round of a live view.
     */
    @Test
    void aRoundReadsTheTablesVersionsWithoutWalkingTheirFiles() throws Exception {
        java.util.concurrent.atomic.AtomicInteger walks = new java.util.concurrent.atomic.AtomicInteger();
        Materializer materializer = new Materializer(noStatus(tables, walks), store, MaterializeHooks.NONE);
        materializer.run(spec);
        append(rows(V1, 1, "u2", 2, 20));
        materializer.run(spec);
        assertThat(store.state(spec.id()).recordsRead()).isEqualTo(2);
        assertThat(walks.get()).as("calls of status()").isZero();
    }

    /**
     * A round reads its offline table's domains once (each read loads the table's latest snapshot): the progress,
     * and for a view with a rolling feature the rows' mark, not both again before its append.
     */
    @Test
    void aRoundReadsTheOfflineTablesDomainsOnce() throws Exception {
        java.util.concurrent.atomic.AtomicInteger reads = new java.util.concurrent.atomic.AtomicInteger();
        Materializer materializer = new Materializer(counting(tables, "domainMetadata", reads), store,
                MaterializeHooks.NONE);
        materializer.run(spec);
        append(rows(V1, 1, "u2", 2, 20));
        reads.set(0);
        materializer.run(spec);
        assertThat(store.state(spec.id()).recordsRead()).isEqualTo(2);
        assertThat(reads.get()).as("domain reads of a round").isEqualTo(1);
    }

    /** The tables, whose opened tables count their {@code status()} calls. */
    static Tables noStatus(Tables tables, java.util.concurrent.atomic.AtomicInteger walks) {
        return counting(tables, "status", walks);
    }

    /** The tables, whose opened tables count their calls of {@code name}. */
    static Tables counting(Tables tables, String name, java.util.concurrent.atomic.AtomicInteger calls) {
        return (Tables) java.lang.reflect.Proxy.newProxyInstance(Tables.class.getClassLoader(),
                new Class<?>[] {Tables.class}, (proxy, method, args) -> {
                    Object out = invoke(tables, method, args);
                    if (out instanceof DeltaTable table) {
                        return java.lang.reflect.Proxy.newProxyInstance(DeltaTable.class.getClassLoader(),
                                new Class<?>[] {DeltaTable.class}, (p, m, a) -> {
                                    if (m.getName().equals(name)) {
                                        calls.incrementAndGet();
                                    }
                                    return invoke(table, m, a);
                                });
                    }
                    return out;
                });
    }

    private static Object invoke(Object target, java.lang.reflect.Method method, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (java.lang.reflect.InvocationTargetException e) {
            throw e.getCause();
        }
    }

    /**
     * Another writer rewrites a data file of the source (a rescued-records replay, an UPDATE or MERGE): its commit
     * removes the file and adds one holding the same rows but one. The view reads only that row, not the file's
     * other rows a second time.
     */
    @Test
    void aRewriteOfSourceRowsIsReadAsTheRowsItChangedNotAsTheWholeFileAgain() {
        Materializer materializer = new Materializer(tables, store, MaterializeHooks.NONE);
        // u2, and a row whose user did not decode (NULL: skipped, like a value a rescue replay fills in later).
        append(rows(V1, 1, "u2", 2, 20, null, 3, 25));
        materializer.run(spec);
        FeatureState before = store.state(spec.id());
        assertThat(before.recordsRead()).isEqualTo(2);
        assertThat(before.skipped()).isEqualTo(1);

        Optional<Long> rewritten = source.rewriteRows("value", "amount", V1, row -> {
            GenericRecord value = (GenericRecord) row.get("value");
            if (value.get("user_id") != null) {
                return false;
            }
            value.put("user_id", "u3");
            return true;
        }, io.tributary.delta.WriteGuard.NONE);
        assertThat(rewritten).isPresent();
        materializer.run(spec);

        FeatureState after = store.state(spec.id());
        assertThat(after.recordsRead()).as("only the filled-in row is new").isEqualTo(3);
        assertThat(after.skipped()).isEqualTo(1);
        List<Map<String, Object>> counts = new FeatureLookup(store, tables).lookup(spec,
                List.of(new FeatureLookup.Key("[\"u1\"]", null), new FeatureLookup.Key("[\"u2\"]", null),
                        new FeatureLookup.Key("[\"u3\"]", null)),
                OnlineFixtures.T0.plusSeconds(3600));
        assertThat(counts).extracting(m -> m == null ? null : m.get("n")).containsExactly(1L, 1L, 1L);
    }

    /**
     * The tiles' and newest windows' primary keys lead with the entity's key text, and PostgreSQL's B-tree takes an
     * entry of at most 2,704 bytes: an entity of a 9 kB id failed the round, and so every later round of the view.
     * Its records are skipped and counted; an entity at the limit and the records after are materialized.
     */
    @Test
    void anEntityTooLongForPostgresIndexIsSkippedAndCountedInsteadOfStoppingTheView() {
        Materializer materializer = new Materializer(tables, store, MaterializeHooks.NONE);
        String random = new java.util.Random(7).ints(9_000, 'a', 'z' + 1)
                .collect(StringBuilder::new, StringBuilder::appendCodePoint, StringBuilder::append).toString();
        String atLimit = random.substring(0, OnlineStore.MAX_KEY_BYTES - 4); // the key text adds [" and "]
        append(rows(V1, 1, random, 2, 20, atLimit, 3, 30));
        materializer.run(spec);
        append(rows(V1, 3, "u2", 4, 40));
        materializer.run(spec);

        FeatureState state = store.state(spec.id());
        assertThat(state.state()).isEqualTo(FeatureState.ONLINE);
        assertThat(state.skipped()).isEqualTo(1);
        assertThat(state.recordsRead()).isEqualTo(3); // u1 (set-up), atLimit, u2
        List<Map<String, Object>> counts = new FeatureLookup(store, tables).lookup(spec,
                List.of(new FeatureLookup.Key("[\"" + atLimit + "\"]", null), new FeatureLookup.Key("[\"u2\"]",
                        null), new FeatureLookup.Key("[\"" + random + "\"]", null)),
                OnlineFixtures.T0.plusSeconds(3600));
        assertThat(counts).extracting(m -> m == null ? null : m.get("n")).containsExactly(1L, 1L, null);
    }

    /**
     * A round that dies after its offline commit and before its PostgreSQL commit (a kill, a lost connection) is
     * repeated from the old version. The offline table already holds the windows it made final, so the repeat appends
     * none; it must still write them as the entities' newest windows online, since their tiles are expired by the same
     * round: a lookup as of now of an entity whose windows all became final then answered null (or an older window).
     */
    @Test
    void aRoundRepeatedAfterACrashBetweenItsTwoCommitsStillPublishesItsFinalWindowsOnline() {
        Materializer materializer = new Materializer(tables, store, MaterializeHooks.NONE);
        append(rows(V1, 1, "u2", 2, 30, "u2", 3, 40));
        materializer.run(spec); // u1 at 10 s, u2 twice: nothing final yet (lateness 1 h)
        // u1 at 2 h: the watermark passes 1 h, so [0, 10 m) is final for u1 and u2 and their tiles expire.
        append(rows(V1, 3, "u1", 4, 7_200));
        Materializer crashing = new Materializer(tables, store, s -> {
            throw new IllegalStateException("killed between the two commits");
        });
        assertThatThrownBy(() -> crashing.run(spec)).hasMessageContaining("killed");
        FeatureState crashed = store.state(spec.id());
        materializer.run(spec);
        FeatureState after = store.state(spec.id());
        assertThat(after.version()).isGreaterThan(crashed.version());
        assertThat(after.recordsRead()).isEqualTo(4);

        List<Map<String, Object>> now = new FeatureLookup(store, tables).lookup(spec,
                List.of(new FeatureLookup.Key("[\"u2\"]", null), new FeatureLookup.Key("[\"u1\"]", null)),
                OnlineFixtures.T0.plusSeconds(3 * 3600));
        assertThat(now).extracting(m -> m == null ? null : m.get("n")).as("u2's final window [0, 10 m), u1's open "
                + "one at 2 h").containsExactly(2L, 1L);
        // The offline table holds [0, 10 m) of each once.
        List<Map<String, Object>> asOf = new FeatureLookup(store, tables).lookup(spec,
                List.of(new FeatureLookup.Key("[\"u2\"]", OnlineFixtures.T0.plusSeconds(3000)),
                        new FeatureLookup.Key("[\"u1\"]", OnlineFixtures.T0.plusSeconds(3000))),
                OnlineFixtures.T0.plusSeconds(3 * 3600));
        assertThat(asOf).extracting(m -> m == null ? null : m.get("n")).containsExactly(2L, 1L);
    }

    /**
     * Another writer of a registered source changes a column's type in place (Spark's {@code overwriteSchema}: a new
     * metaData action, the table's id kept), here a sum's {@code value.amount} from double to string. A process that
     * compiles the view afresh (another server, a restart) refuses it: the source no longer fits the definition. A
     * round of a process that compiled it before must say the same, not fail on the first string it adds up (a
     * ClassCastException, which the server retried at every commit while its other servers stopped the view).
     */
    @Test
    void aSourceColumnRetypedInPlaceStopsTheRunningViewAsACompileElsewhereWould() throws Exception {
        FeatureViewSpec sum;
        try (TableChanges changes = tables.changesSince(location, -1)) {
            sum = FeatureViewCompiler.compile("sum-view", "c.s.sums", location, tables.defaultLocation("c", "s",
                    "sums"), "fv_sums", new FeatureViewDefinition(List.of("value.user_id"), null, "1h",
                            List.of(new FeatureViewDefinition.FeatureDefinition("total", "sum", "value.amount",
                                    new FeatureViewDefinition.WindowDefinition(
                                            new FeatureViewDefinition.Span("10m", null, null), null, null)))),
                    changes.columns());
        }
        store.register(sum);
        new OfflineFeatures(tables).create(sum);
        Materializer materializer = new Materializer(tables, store, MaterializeHooks.NONE);
        materializer.run(sum);
        long consumed = store.state(sum.id()).version();

        String id;
        try (TableChanges changes = tables.changesSince(location, -1)) {
            id = changes.tableId();
        }
        retypeAmountInPlace();
        assertThatThrownBy(() -> materializer.run(sum)).isInstanceOf(FeatureDefinitionException.class)
                .hasMessageContaining("value.amount").hasMessageContaining("string");
        assertThat(store.state(sum.id()).version()).as("nothing consumed").isEqualTo(consumed);
        try (TableChanges changes = tables.changesSince(location, -1)) {
            assertThat(changes.tableId()).isEqualTo(id);
            assertThatThrownBy(() -> FeatureViewCompiler.compile("sum-view", "c.s.sums", location, "x", "fv_sums",
                    new FeatureViewDefinition(List.of("value.user_id"), null, "1h",
                            List.of(new FeatureViewDefinition.FeatureDefinition("total", "sum", "value.amount",
                                    new FeatureViewDefinition.WindowDefinition(
                                            new FeatureViewDefinition.Span("10m", null, null), null, null)))),
                    changes.columns())).as("what a fresh compile says").isInstanceOf(FeatureDefinitionException.class);
        }
    }

    /** A commit of another writer: the schema with {@code value.amount} a string, same table id, and one row. */
    private void retypeAmountInPlace() throws Exception {
        Schema retyped = rowSchema("""
                {"type":"record","name":"V","fields":[{"name":"user_id","type":["null","string"]},
                 {"name":"amount","type":["null","string"]}]}""");
        String other = tables.defaultLocation("c", "s", "retyped");
        DeltaTable written = tables.create(other, retyped, Map.of(P, 0L));
        GenericRecord row = OnlineFixtures.row(rowSchema(OnlineFixtures.VALUE_V1), offset, "u9", 1, 30);
        GenericRecord value = new org.apache.avro.generic.GenericData.Record(
                retyped.getField("value").schema().getTypes().get(1));
        value.put("user_id", "u9");
        value.put("amount", "lots");
        GenericRecord r = new org.apache.avro.generic.GenericData.Record(retyped);
        for (Schema.Field f : retyped.getFields()) {
            r.put(f.name(), f.name().equals("value") ? value : row.get(f.name()));
        }
        written.commit(List.of(written.writeDataFile(List.of(r))), Map.of(P, new OffsetRange(0, 1)));
        Path from = dir.resolve("wh/c/s/retyped");
        Path to = dir.resolve("wh/c/s/tx_ingestion");
        String metaData = null;
        String add = null;
        for (String line : Files.readAllLines(from.resolve("_delta_log/00000000000000000000.json"))) {
            if (line.startsWith("{\"metaData\"")) {
                metaData = line;
            }
        }
        for (String line : Files.readAllLines(from.resolve("_delta_log/00000000000000000001.json"))) {
            if (line.startsWith("{\"add\"")) {
                add = line;
            }
        }
        String file = add.replaceAll("^\\{\"add\":\\{\"path\":\"([^\"]+)\".*$", "$1");
        Files.copy(from.resolve(file), to.resolve(file));
        String sourceMeta = Files.readAllLines(to.resolve("_delta_log/00000000000000000000.json")).stream()
                .filter(l -> l.startsWith("{\"metaData\"")).findFirst().orElseThrow();
        String sourceId = sourceMeta.replaceAll("^.*?\"id\":\"([^\"]+)\".*$", "$1");
        metaData = metaData.replaceFirst("\"id\":\"[^\"]+\"", "\"id\":\"" + sourceId + "\"");
        long next = source.version() + 1;
        Files.writeString(to.resolve(String.format("_delta_log/%020d.json", next)),
                "{\"commitInfo\":{\"timestamp\":" + System.currentTimeMillis() + ",\"operation\":\"WRITE\"}}\n"
                        + metaData + "\n" + add + "\n");
    }
}
