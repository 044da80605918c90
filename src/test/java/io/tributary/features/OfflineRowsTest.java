package io.tributary.features;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.delta.DataFile;
import io.tributary.delta.DeltaTable;
import io.tributary.delta.TableRows;
import io.tributary.delta.Tables;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The offline rows written straight into the Parquet writer ({@link OfflineFeatures.OfflineRows}) make the file that
 * parquet-avro makes of the same rows as records: the same rows read back, the same Delta statistics.
 */
class OfflineRowsTest {
    @TempDir
    Path dir;

    static final FeatureWindow TUMBLING = new FeatureWindow(FeatureWindow.Kind.TUMBLING, 1000, 1000);
    static final FeatureViewSpec SPEC = new FeatureViewSpec("v", "c.s.v", "unused", List.of(List.of("value", "user"),
            List.of("value", "region")), List.of("value_user", "value_region"), List.of("string", "bigint"),
            List.of("value", "ts"), true, 0, List.of(
                    new Feature("n", FeatureFunction.COUNT, null, false, TUMBLING),
                    new Feature("total", FeatureFunction.SUM, List.of("value", "amount"), true, TUMBLING),
                    new Feature("last_note", FeatureFunction.LAST, List.of("value", "note"), false, TUMBLING)),
            "unused", "fv_v");

    @Test
    void directRowsWriteTheFileParquetAvroWritesOfTheSameRecords() {
        List<FinalWindows.Row> rows = new ArrayList<>();
        for (int e = 0; e < 50; e++) {
            List<Object> entity = List.of("u\"" + e, (long) (e % 7) - 3);
            for (int w = 0; w < 20; w++) {
                Object[] values = w % 3 == 0 ? new Object[] {(long) w, null, null}
                        : w % 3 == 1 ? new Object[] {null, w * 1.5 - 7, null}
                        : new Object[] {null, null, e % 4 == 0 ? null : "note " + w};
                rows.add(new FinalWindows.Row(entity, 1_000L * w, 1_000L * (w + 1), values));
            }
        }
        Tables tables = Tables.forWarehouse(dir.toString(), Optional.empty());
        Schema schema = OfflineFeatures.schema(SPEC);
        DeltaTable records = tables.create(dir.resolve("records").toString(), schema, Map.of());
        DeltaTable direct = tables.create(dir.resolve("direct").toString(), schema, Map.of());

        List<GenericRecord> asRecords = rows.stream().map(r -> OfflineFeatures.row(schema, SPEC, r.entity(),
                r.start(), r.end(), r.values())).toList();
        DataFile a = records.writeDataFile(asRecords);
        DataFile b = direct.writeRows(new OfflineFeatures.OfflineRows(schema, 2, rows.iterator(), Integer.MAX_VALUE));
        assertThat(b.numRecords()).isEqualTo(a.numRecords()).isEqualTo(1000);
        assertThat(b.statsJson()).isEqualTo(a.statsJson());
        records.commitExclusive(records.status().version(), List.of(a), Map.of());
        direct.commitExclusive(direct.status().version(), List.of(b), Map.of());
        assertThat(read(tables, dir.resolve("direct").toString())).hasSize(1000)
                .isEqualTo(read(tables, dir.resolve("records").toString()));
    }

    @Test
    void aFileTakesAtMostItsLimitAndTheNextFileGoesOn() {
        List<FinalWindows.Row> rows = new ArrayList<>();
        for (int w = 0; w < 25; w++) {
            rows.add(new FinalWindows.Row(List.of("u", 1L), 1_000L * w, 1_000L * (w + 1),
                    new Object[] {(long) w, null, null}));
        }
        Tables tables = Tables.forWarehouse(dir.toString(), Optional.empty());
        Schema schema = OfflineFeatures.schema(SPEC);
        DeltaTable table = tables.create(dir.resolve("t").toString(), schema, Map.of());
        var it = rows.iterator();
        List<DataFile> files = new ArrayList<>();
        while (it.hasNext()) {
            files.add(table.writeRows(new OfflineFeatures.OfflineRows(schema, 2, it, 10)));
        }
        assertThat(files).extracting(DataFile::numRecords).containsExactly(10L, 10L, 5L);
    }

    private static List<Map<String, Object>> read(Tables tables, String location) {
        List<Map<String, Object>> out = new ArrayList<>();
        try (TableRows r = tables.read(location)) {
            r.forEachRemaining(out::add);
        }
        return out;
    }
}
