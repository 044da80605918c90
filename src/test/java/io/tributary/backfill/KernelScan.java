package io.tributary.backfill;

import io.delta.kernel.Scan;
import io.delta.kernel.Snapshot;
import io.delta.kernel.TableManager;
import io.delta.kernel.data.ColumnVector;
import io.delta.kernel.data.ColumnarBatch;
import io.delta.kernel.data.FilteredColumnarBatch;
import io.delta.kernel.data.Row;
import io.delta.kernel.defaults.engine.DefaultEngine;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.internal.InternalScanFileUtils;
import io.delta.kernel.internal.data.ScanStateRow;
import io.delta.kernel.internal.util.Utils;
import io.delta.kernel.types.DataType;
import io.delta.kernel.types.IntegerType;
import io.delta.kernel.types.LongType;
import io.delta.kernel.types.StringType;
import io.delta.kernel.types.StructType;
import io.delta.kernel.types.TimestampType;
import io.delta.kernel.utils.CloseableIterator;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.hadoop.conf.Configuration;

/**
 * The tests' reader: Delta Kernel's scan on Kernel's stock Hadoop engine, written here from Kernel's documented read
 * recipe so what the tests check does not pass through io.tributary.delta. Covers the column types the backfill
 * tests use (string, int, bigint, timestamp, struct).
 */
final class KernelScan {
    private static final Engine ENGINE = DefaultEngine.create(new Configuration());

    private KernelScan() {}

    static List<Map<String, Object>> rows(String location) {
        return rows(TableManager.loadSnapshot(location).build(ENGINE));
    }

    /** The table as it stood at {@code version}, whatever was committed since (a merge racing the test). */
    static List<Map<String, Object>> rows(String location, long version) {
        return rows(TableManager.loadSnapshot(location).atVersion(version).build(ENGINE));
    }

    private static List<Map<String, Object>> rows(Snapshot snapshot) {
        Scan scan = snapshot.getScanBuilder().build();
        Row scanState = scan.getScanState(ENGINE);
        StructType physical = ScanStateRow.getPhysicalDataReadSchema(scanState);
        List<Map<String, Object>> out = new ArrayList<>();
        try (CloseableIterator<FilteredColumnarBatch> files = scan.getScanFiles(ENGINE)) {
            while (files.hasNext()) {
                try (CloseableIterator<Row> fileRows = files.next().getRows()) {
                    while (fileRows.hasNext()) {
                        Row scanFile = fileRows.next();
                        CloseableIterator<ColumnarBatch> data = ENGINE.getParquetHandler()
                                .readParquetFiles(Utils.singletonCloseableIterator(InternalScanFileUtils.getAddFileStatus(scanFile)),
                                        physical, Optional.empty())
                                .map(r -> r.getData());
                        try (CloseableIterator<FilteredColumnarBatch> logical = Scan.transformPhysicalData(ENGINE, scanState, scanFile, data)) {
                            while (logical.hasNext()) {
                                add(logical.next(), out);
                            }
                        }
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out;
    }

    static long version(String location) {
        return TableManager.loadSnapshot(location).build(ENGINE).getVersion();
    }

    private static void add(FilteredColumnarBatch batch, List<Map<String, Object>> out) {
        ColumnarBatch b = batch.getData();
        StructType schema = b.getSchema();
        for (int row = 0; row < b.getSize(); row++) {
            if (batch.getSelectionVector().isPresent()) {
                ColumnVector s = batch.getSelectionVector().get();
                if (s.isNullAt(row) || !s.getBoolean(row)) {
                    continue;
                }
            }
            Map<String, Object> r = new LinkedHashMap<>();
            for (int c = 0; c < schema.length(); c++) {
                r.put(schema.at(c).getName(), value(b.getColumnVector(c), row, schema.at(c).getDataType()));
            }
            out.add(r);
        }
    }

    private static Object value(ColumnVector v, int row, DataType type) {
        if (v.isNullAt(row)) {
            return null;
        }
        if (type instanceof StringType) {
            return v.getString(row);
        } else if (type instanceof IntegerType) {
            return v.getInt(row);
        } else if (type instanceof LongType) {
            return v.getLong(row);
        } else if (type instanceof TimestampType) {
            return ChronoUnit.MICROS.addTo(Instant.EPOCH, v.getLong(row));
        } else if (type instanceof StructType st) {
            Map<String, Object> m = new LinkedHashMap<>();
            for (int i = 0; i < st.length(); i++) {
                m.put(st.at(i).getName(), value(v.getChild(i), row, st.at(i).getDataType()));
            }
            return m;
        }
        throw new UnsupportedOperationException("the test reader does not read " + type);
    }
}
