package io.tributary.delta;

import io.delta.kernel.Scan;
import io.delta.kernel.Snapshot;
import io.delta.kernel.data.ArrayValue;
import io.delta.kernel.data.ColumnVector;
import io.delta.kernel.data.ColumnarBatch;
import io.delta.kernel.data.FilteredColumnarBatch;
import io.delta.kernel.data.MapValue;
import io.delta.kernel.data.Row;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.types.ArrayType;
import io.delta.kernel.types.BinaryType;
import io.delta.kernel.types.BooleanType;
import io.delta.kernel.types.ByteType;
import io.delta.kernel.types.DataType;
import io.delta.kernel.types.DateType;
import io.delta.kernel.types.DecimalType;
import io.delta.kernel.types.DoubleType;
import io.delta.kernel.types.FloatType;
import io.delta.kernel.types.IntegerType;
import io.delta.kernel.types.LongType;
import io.delta.kernel.types.MapType;
import io.delta.kernel.types.ShortType;
import io.delta.kernel.types.StringType;
import io.delta.kernel.types.StructField;
import io.delta.kernel.types.StructType;
import io.delta.kernel.types.TimestampNTZType;
import io.delta.kernel.types.TimestampType;
import io.delta.kernel.utils.CloseableIterator;
import io.delta.kernel.utils.FileStatus;
import io.tributary.delta.kernel.KernelIterators;
import io.tributary.delta.kernel.ScanFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * Reads a snapshot through Kernel's scan: Kernel resolves checkpoints, column mapping and partition values, and its
 * deletion-vector selection vectors say which rows are live. Works for tables from any Delta writer.
 */
final class TableReader implements TableRows {
    private final Engine engine;
    private final long version;
    private final Row scanState;
    private final StructType physicalSchema;
    private final CloseableIterator<FilteredColumnarBatch> scanFiles;
    private final Predicate<String> fileFilter;
    private CloseableIterator<Row> scanFileRows;
    private CloseableIterator<FilteredColumnarBatch> data;
    private final Deque<Map<String, Object>> pending = new ArrayDeque<>();

    TableReader(Engine engine, Snapshot snapshot) {
        this(engine, snapshot, path -> true, null);
    }

    /** Reads only the data files whose path as the log records it passes {@code fileFilter}. */
    TableReader(Engine engine, Snapshot snapshot, Predicate<String> fileFilter) {
        this(engine, snapshot, fileFilter, null);
    }

    /**
     * Reads only the live files whose path as the log records it (see {@link #logPaths}) passes {@code fileFilter},
     * and of them only the top-level {@code columns} (all when null): Parquet is columnar, so columns not asked for
     * are never decoded.
     */
    TableReader(Engine engine, Snapshot snapshot, Predicate<String> fileFilter, java.util.Set<String> columns) {
        this.engine = engine;
        this.fileFilter = fileFilter;
        this.version = snapshot.getVersion();
        io.delta.kernel.ScanBuilder builder = snapshot.getScanBuilder();
        if (columns != null) {
            List<StructField> kept = new ArrayList<>();
            for (StructField f : snapshot.getSchema().fields()) {
                if (columns.contains(f.getName())) {
                    kept.add(f);
                }
            }
            builder = builder.withReadSchema(new StructType(kept));
        }
        Scan scan = builder.build();
        this.scanState = scan.getScanState(engine);
        this.physicalSchema = ScanFiles.physicalReadSchema(scanState);
        this.scanFiles = scan.getScanFiles(engine);
    }

    @Override
    public long version() {
        return version;
    }

    @Override
    public boolean hasNext() {
        while (pending.isEmpty()) {
            FilteredColumnarBatch batch = nextData();
            if (batch == null) {
                return false;
            }
            addRows(batch);
        }
        return true;
    }

    /** The next batch with its selection vector (see {@link TableChanges#nextBatch}), or null after the last. */
    FilteredColumnarBatch nextBatch() {
        if (!pending.isEmpty()) {
            throw new IllegalStateException("rows were already taken one at a time");
        }
        return nextData();
    }

    private FilteredColumnarBatch nextData() {
        try {
            while (true) {
                if (data != null && data.hasNext()) {
                    return data.next();
                }
                closeData();
                if (scanFileRows != null && scanFileRows.hasNext()) {
                    Row scanFile = scanFileRows.next();
                    if (fileFilter.test(ScanFiles.logPath(scanFile))) {
                        openFile(scanFile);
                    }
                    continue;
                }
                if (scanFileRows != null) {
                    scanFileRows.close();
                    scanFileRows = null;
                }
                if (!scanFiles.hasNext()) {
                    return null;
                }
                scanFileRows = scanFiles.next().getRows();
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public Map<String, Object> next() {
        if (!hasNext()) {
            throw new NoSuchElementException();
        }
        return pending.removeFirst();
    }

    /** The paths of a snapshot's live data files as its log records them: the keys {@code fileFilter} sees. */
    static java.util.Set<String> logPaths(Engine engine, Snapshot snapshot) {
        java.util.Set<String> paths = new java.util.HashSet<>();
        LiveFiles.forEach(engine, snapshot, false, scanFile -> paths.add(ScanFiles.logPath(scanFile)));
        return paths;
    }

    private void openFile(Row scanFile) throws IOException {
        FileStatus file = ScanFiles.fileStatus(scanFile);
        CloseableIterator<ColumnarBatch> physical = engine.getParquetHandler()
                .readParquetFiles(KernelIterators.singleton(file), physicalSchema,
                        Optional.empty())
                .map(r -> r.getData());
        data = Scan.transformPhysicalData(engine, scanState, scanFile, physical);
    }

    private void addRows(FilteredColumnarBatch batch) {
        ColumnarBatch b = batch.getData();
        StructType schema = b.getSchema();
        Optional<ColumnVector> selection = batch.getSelectionVector();
        int n = b.getSize();
        for (int row = 0; row < n; row++) {
            if (selection.isPresent()) {
                ColumnVector s = selection.get();
                if (s.isNullAt(row) || !s.getBoolean(row)) {
                    continue;
                }
            }
            Map<String, Object> out = new LinkedHashMap<>();
            for (int c = 0; c < schema.length(); c++) {
                StructField f = schema.at(c);
                out.put(f.getName(), value(b.getColumnVector(c), row, f.getDataType()));
            }
            pending.addLast(out);
        }
    }

    static Object value(ColumnVector v, int row, DataType type) {
        if (v.isNullAt(row)) {
            return null;
        }
        if (type instanceof BooleanType) {
            return v.getBoolean(row);
        } else if (type instanceof ByteType) {
            return v.getByte(row);
        } else if (type instanceof ShortType) {
            return v.getShort(row);
        } else if (type instanceof IntegerType) {
            return v.getInt(row);
        } else if (type instanceof LongType) {
            return v.getLong(row);
        } else if (type instanceof FloatType) {
            return v.getFloat(row);
        } else if (type instanceof DoubleType) {
            return v.getDouble(row);
        } else if (type instanceof StringType) {
            return v.getString(row);
        } else if (type instanceof BinaryType) {
            return v.getBinary(row);
        } else if (type instanceof DecimalType) {
            return v.getDecimal(row);
        } else if (type instanceof DateType) {
            return LocalDate.ofEpochDay(v.getInt(row));
        } else if (type instanceof TimestampType) {
            return ChronoUnit.MICROS.addTo(Instant.EPOCH, v.getLong(row));
        } else if (type instanceof TimestampNTZType) {
            return LocalDateTime.ofEpochSecond(0, 0, ZoneOffset.UTC).plus(v.getLong(row), ChronoUnit.MICROS);
        } else if (type instanceof StructType st) {
            Map<String, Object> out = new LinkedHashMap<>();
            for (int i = 0; i < st.length(); i++) {
                out.put(st.at(i).getName(), value(v.getChild(i), row, st.at(i).getDataType()));
            }
            return out;
        } else if (type instanceof ArrayType at) {
            ArrayValue a = v.getArray(row);
            ColumnVector elements = a.getElements();
            List<Object> out = new ArrayList<>(a.getSize());
            for (int i = 0; i < a.getSize(); i++) {
                out.add(value(elements, i, at.getElementType()));
            }
            return out;
        } else if (type instanceof MapType mt) {
            MapValue m = v.getMap(row);
            Map<Object, Object> out = new LinkedHashMap<>();
            for (int i = 0; i < m.getSize(); i++) {
                out.put(value(m.getKeys(), i, mt.getKeyType()), value(m.getValues(), i, mt.getValueType()));
            }
            return out;
        }
        throw new UnsupportedOperationException("reading " + type + " columns is not supported");
    }

    private void closeData() throws IOException {
        if (data != null) {
            data.close();
            data = null;
        }
    }

    @Override
    public void close() {
        try {
            closeData();
            if (scanFileRows != null) {
                scanFileRows.close();
            }
            scanFiles.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
