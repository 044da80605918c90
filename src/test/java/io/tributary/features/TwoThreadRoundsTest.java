package io.tributary.features;

import static io.tributary.online.OnlineFixtures.rowSchema;
import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.delta.DeltaTable;
import io.tributary.delta.OffsetRange;
import io.tributary.delta.PartitionKey;
import io.tributary.delta.TableChanges;
import io.tributary.delta.TableRows;
import io.tributary.delta.Tables;
import io.tributary.online.OnlineFixtures;
import io.tributary.online.OnlineStore;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * A round that makes its offline rows on two threads (each half of the entities into files of its own, each with its
 * own newest-window writer) leaves the offline table, the tiles and the newest windows exactly as a round on one
 * thread: the same source, two views of the same definition, one always split, one never.
 */
class TwoThreadRoundsTest {
    static final Schema V1 = rowSchema(OnlineFixtures.VALUE_V1);
    static final PartitionKey P = new PartitionKey("t", 0);

    @TempDir
    Path dir;
    PGSimpleDataSource database = OnlineFixtures.database();
    String schema = OnlineFixtures.uniqueSchema();

    @AfterEach
    void dropSchema() throws Exception {
        OnlineFixtures.dropSchema(database, schema);
    }

    @Test
    void twoThreadsWriteWhatOneWrites() throws Exception {
        Tables tables = Tables.forWarehouse(dir.resolve("wh").toString(), Optional.empty());
        String location = tables.defaultLocation("c", "s", "tx_ingestion");
        DeltaTable source = tables.create(location, V1, Map.of(P, 0L));
        long offset = 0;
        java.util.Random random = new java.util.Random(7);
        FeatureStore store = new FeatureStore(new OnlineStore(database, schema));
        FeatureViewSpec one = spec(tables, location, "one");
        FeatureViewSpec two = spec(tables, location, "two");
        for (FeatureViewSpec spec : List.of(one, two)) {
            store.register(spec);
            new OfflineFeatures(tables).create(spec);
        }
        Materializer single = new Materializer(tables, store, MaterializeHooks.NONE, 700);
        single.parallelTiles = Integer.MAX_VALUE;
        Materializer split = new Materializer(tables, store, MaterializeHooks.NONE, 700);
        split.parallelTiles = 1;
        for (int commit = 0; commit < 6; commit++) {
            List<GenericRecord> rows = new ArrayList<>();
            for (int i = 0; i < 500; i++) {
                // a history first (a first round in parts), then commits with late and on-time records
                long second = commit * 600L + random.nextInt(commit == 0 ? 1 : 900) + (commit == 0 ? i * 3L : 0);
                rows.add(OnlineFixtures.row(V1, offset + i, "u" + random.nextInt(300), random.nextInt(100) / 4.0,
                        second));
            }
            source.commit(List.of(source.writeDataFile(rows)), Map.of(P, new OffsetRange(offset, offset + 500)));
            offset += 500;
            if (commit == 0 || commit >= 3) {
                for (Materializer m : List.of(single, split)) {
                    FeatureViewSpec spec = m == single ? one : two;
                    MaterializeResult r;
                    do {
                        r = m.run(spec);
                    } while (r.more());
                }
            }
        }
        assertThat(store.state(one.id()).version()).isEqualTo(source.status().version());
        assertThat(store.state(two.id()).version()).isEqualTo(source.status().version());
        List<String> offlineOne = offline(tables, one);
        assertThat(offlineOne).hasSizeGreaterThan(1000);
        assertThat(offline(tables, two)).isEqualTo(offlineOne);
        assertThat(online(store.latest(two))).isEqualTo(online(store.latest(one))).isNotEmpty();
        assertThat(online(store.tiles(two))).isEqualTo(online(store.tiles(one))).isNotEmpty();
    }

    private static FeatureViewSpec spec(Tables tables, String location, String name) {
        try (TableChanges changes = tables.changesSince(location, -1)) {
            return FeatureViewCompiler.compile("view-" + name, "c.s." + name, location,
                    tables.defaultLocation("c", "s", name), "fv_" + name,
                    new FeatureViewDefinition(List.of("value.user_id"), null, "2m", List.of(
                            new FeatureViewDefinition.FeatureDefinition("n", "count", null, window("1m", null, null)),
                            new FeatureViewDefinition.FeatureDefinition("total", "sum", "value.amount",
                                    new FeatureViewDefinition.WindowDefinition(null,
                                            new FeatureViewDefinition.Span("10m", "2m", null), null)),
                            new FeatureViewDefinition.FeatureDefinition("mean", "avg", "value.amount",
                                    new FeatureViewDefinition.WindowDefinition(null, null,
                                            new FeatureViewDefinition.Span("5m", null, null))))),
                    changes.columns());
        }
    }

    private static FeatureViewDefinition.WindowDefinition window(String d, String s, String p) {
        return new FeatureViewDefinition.WindowDefinition(new FeatureViewDefinition.Span(d, s, p), null, null);
    }

    private static List<String> offline(Tables tables, FeatureViewSpec spec) {
        List<String> out = new ArrayList<>();
        try (TableRows rows = tables.read(spec.offlineLocation())) {
            rows.forEachRemaining(r -> out.add(r.toString()));
        }
        out.sort(Comparator.naturalOrder());
        return out;
    }

    private List<String> online(String table) throws Exception {
        List<String> out = new ArrayList<>();
        try (Connection c = database.getConnection(); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT * FROM " + table + " ORDER BY 1, 2, 3")) {
            int n = rs.getMetaData().getColumnCount();
            while (rs.next()) {
                StringBuilder b = new StringBuilder();
                for (int i = 1; i <= n; i++) {
                    Object v = rs.getObject(i);
                    b.append(v instanceof byte[] bytes ? java.util.HexFormat.of().formatHex(bytes) : v).append('|');
                }
                out.add(b.toString());
            }
        }
        return out;
    }
}
