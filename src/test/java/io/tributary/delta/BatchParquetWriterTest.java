package io.tributary.delta;

import static org.assertj.core.api.Assertions.assertThat;

import io.delta.kernel.data.ArrayValue;
import io.delta.kernel.data.ColumnVector;
import io.delta.kernel.data.ColumnarBatch;
import io.delta.kernel.data.FilteredColumnarBatch;
import io.delta.kernel.data.MapValue;
import io.delta.kernel.defaults.engine.DefaultEngine;
import io.delta.kernel.defaults.engine.fileio.FileIO;
import io.delta.kernel.defaults.engine.hadoopio.HadoopFileIO;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.engine.FileReadResult;
import io.delta.kernel.internal.util.Utils;
import io.delta.kernel.internal.util.VectorUtils;
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
import java.io.IOException;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.io.LocalInputFile;
import org.apache.parquet.schema.MessageType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Our Hadoop-free Parquet writer for Kernel's batches against Kernel's own (Hadoop-based) writer: the same Parquet
 * schema for every type, and the same values read back by Kernel's own reader, for a Spark-written checkpoint's
 * rows and for a batch of every type. Spark reads Kernel's checkpoints, so a file equal to Kernel's in schema and
 * values is one Spark reads. That no Hadoop class is loaded is {@link PureJavaReadsTest}'s part.
 */
class BatchParquetWriterTest {
    private static final Engine KERNEL = DefaultEngine.create(new Configuration());

    @TempDir
    Path dir;

    private static final StructType EVERY_TYPE = new StructType()
            .add("b", BooleanType.BOOLEAN)
            .add("i8", ByteType.BYTE)
            .add("i16", ShortType.SHORT)
            .add("i32", IntegerType.INTEGER, false)
            .add("i64", LongType.LONG)
            .add("f", FloatType.FLOAT)
            .add("d", DoubleType.DOUBLE)
            .add("s", StringType.STRING)
            .add("day", DateType.DATE)
            .add("ts", TimestampType.TIMESTAMP)
            .add("ntz", TimestampNTZType.TIMESTAMP_NTZ)
            .add("dec5", new DecimalType(5, 2))
            .add("dec15", new DecimalType(15, 3))
            .add("dec30", new DecimalType(30, 4))
            .add("tags", new ArrayType(StringType.STRING, true))
            .add("strict", new ArrayType(LongType.LONG, false))
            .add("conf", new MapType(StringType.STRING, StringType.STRING, true))
            .add("nested", new StructType()
                    .add("id", LongType.LONG, false)
                    .add("deep", new StructType().add("x", new ArrayType(
                            new StructType().add("k", StringType.STRING), true)))
                    .add("counts", new MapType(StringType.STRING, new ArrayType(IntegerType.INTEGER, true), false)));

    @Test
    void theSchemaIsKernelsForEveryType() throws Exception {
        StructType withBinary = EVERY_TYPE.add("bin", BinaryType.BINARY);
        assertThat(BatchParquetSchema.of(withBinary)).isEqualTo(kernelSchema(withBinary));
        for (int precision = 1; precision <= 38; precision++) {
            StructType decimal = new StructType().add("d", new DecimalType(precision, 0));
            assertThat(BatchParquetSchema.of(decimal)).as("precision %d", precision).isEqualTo(kernelSchema(decimal));
        }
    }

    @Test
    void everyTypeReadsBackAsKernelsOwnFileDoes() throws IOException {
        List<String> json = List.of(
                "{\"b\":true,\"i8\":-8,\"i16\":300,\"i32\":7,\"i64\":9007199254740993,\"f\":1.5,\"d\":-2.25,"
                        + "\"s\":\"zürich\",\"day\":\"2026-01-31\",\"ts\":\"2026-01-31T10:00:00.123456Z\","
                        + "\"ntz\":\"2026-01-31T10:00:00.5\",\"dec5\":-123.45,\"dec15\":123456789012.345,"
                        + "\"dec30\":-12345678901234567890123456.7891,\"tags\":[\"a\",null,\"c\"],\"strict\":[1,2],"
                        + "\"conf\":{\"k\":\"v\",\"n\":null},\"nested\":{\"id\":1,\"deep\":{\"x\":[{\"k\":\"y\"},null]},"
                        + "\"counts\":{\"a\":[1,null]}}}",
                "{\"i32\":0,\"tags\":[],\"strict\":[],\"conf\":{},\"nested\":{\"id\":2,\"deep\":{},\"counts\":{}}}",
                "{\"i32\":-1,\"dec30\":99999999999999999999999999.9999}");
        ColumnarBatch batch = KERNEL.getJsonHandler().parseJson(strings(json.toArray(String[]::new)), EVERY_TYPE,
                Optional.empty());
        assertSameAsKernel(List.of(new FilteredColumnarBatch(batch, Optional.empty())), EVERY_TYPE, 3);
    }

    @Test
    void aSparkCheckpointsRowsReadBackAsKernelsOwnFileDoes() throws Exception {
        Path checkpoint = Path.of(getClass().getResource(
                "/backfill-fixtures/tx_history/_delta_log/00000000000000000004.checkpoint.parquet").toURI());
        StructType schema = checkpointSchema();
        List<FilteredColumnarBatch> batches = new ArrayList<>();
        int rows = 0;
        try (CloseableIterator<FileReadResult> read = KERNEL.getParquetHandler().readParquetFiles(
                single(checkpoint), schema, Optional.empty())) {
            while (read.hasNext()) {
                ColumnarBatch b = read.next().getData();
                rows += b.getSize();
                batches.add(new FilteredColumnarBatch(b, Optional.empty()));
            }
        }
        assertThat(schema.fieldNames()).contains("add", "metaData", "protocol");
        assertSameAsKernel(batches, schema, rows);
    }

    @Test
    void unselectedRowsAreLeftOut() throws IOException {
        StructType schema = new StructType().add("id", LongType.LONG);
        ColumnarBatch batch = KERNEL.getJsonHandler().parseJson(
                strings("{\"id\":1}", "{\"id\":2}", "{\"id\":3}"), schema, Optional.empty());
        ColumnarBatch selection = KERNEL.getJsonHandler().parseJson(
                strings("{\"s\":true}", "{\"s\":false}", "{}"),
                new StructType().add("s", BooleanType.BOOLEAN), Optional.empty());
        Path ours = dir.resolve("selected.parquet");
        BatchParquetWriter.writeAtomically(local(), ours.toString(), Utils.singletonCloseableIterator(
                new FilteredColumnarBatch(batch, Optional.of(selection.getColumnVector(0)))));
        assertThat(rows(ours, schema)).containsExactly(List.of(1L));
    }

    private void assertSameAsKernel(List<FilteredColumnarBatch> batches, StructType schema, int expectedRows)
            throws IOException {
        Path ours = dir.resolve("ours.parquet");
        Path kernels = dir.resolve("kernels.parquet");
        BatchParquetWriter.writeAtomically(local(), ours.toString(), Utils.toCloseableIterator(batches.iterator()));
        KERNEL.getParquetHandler().writeParquetFileAtomically(kernels.toString(),
                Utils.toCloseableIterator(batches.iterator()));

        assertThat(footerSchema(ours)).isEqualTo(footerSchema(kernels));
        List<List<Object>> expected = rows(kernels, schema);
        assertThat(expected).hasSize(expectedRows);
        assertThat(rows(ours, schema)).isEqualTo(expected);
    }

    private static ColumnVector strings(String... values) {
        return VectorUtils.buildColumnVector(List.of(values), StringType.STRING);
    }

    private static FileIO local() {
        return new HadoopFileIO(new Configuration());
    }

    private static MessageType footerSchema(Path file) throws IOException {
        try (org.apache.parquet.hadoop.ParquetFileReader reader =
                org.apache.parquet.hadoop.ParquetFileReader.open(new LocalInputFile(file))) {
            return reader.getFooter().getFileMetaData().getSchema();
        }
    }

    private static CloseableIterator<FileStatus> single(Path file) throws IOException {
        return Utils.singletonCloseableIterator(FileStatus.of(file.toUri().toString(), Files.size(file), 0));
    }

    /** Rows as read by Kernel's own reader, as plain Java values. */
    private static List<List<Object>> rows(Path file, StructType schema) throws IOException {
        List<List<Object>> out = new ArrayList<>();
        try (CloseableIterator<FileReadResult> read = KERNEL.getParquetHandler().readParquetFiles(
                single(file), schema, Optional.empty())) {
            while (read.hasNext()) {
                ColumnarBatch batch = read.next().getData();
                for (int row = 0; row < batch.getSize(); row++) {
                    List<Object> values = new ArrayList<>();
                    for (int c = 0; c < schema.length(); c++) {
                        values.add(value(schema.at(c).getDataType(), batch.getColumnVector(c), row));
                    }
                    out.add(values);
                }
            }
        }
        return out;
    }

    private static Object value(DataType type, ColumnVector v, int row) {
        if (v.isNullAt(row)) {
            return null;
        }
        if (type instanceof StructType struct) {
            Map<String, Object> fields = new LinkedHashMap<>();
            for (int i = 0; i < struct.length(); i++) {
                StructField f = struct.at(i);
                fields.put(f.getName(), value(f.getDataType(), v.getChild(i), row));
            }
            return fields;
        }
        if (type instanceof ArrayType array) {
            ArrayValue a = v.getArray(row);
            List<Object> elements = new ArrayList<>();
            for (int i = 0; i < a.getSize(); i++) {
                elements.add(value(array.getElementType(), a.getElements(), i));
            }
            return elements;
        }
        if (type instanceof MapType map) {
            MapValue m = v.getMap(row);
            Map<Object, Object> entries = new LinkedHashMap<>();
            for (int i = 0; i < m.getSize(); i++) {
                entries.put(value(map.getKeyType(), m.getKeys(), i), value(map.getValueType(), m.getValues(), i));
            }
            return entries;
        }
        if (type instanceof BooleanType) {
            return v.getBoolean(row);
        }
        if (type instanceof ByteType) {
            return v.getByte(row);
        }
        if (type instanceof ShortType) {
            return v.getShort(row);
        }
        if (type instanceof IntegerType || type instanceof DateType) {
            return v.getInt(row);
        }
        if (type instanceof LongType || type instanceof TimestampType || type instanceof TimestampNTZType) {
            return v.getLong(row);
        }
        if (type instanceof FloatType) {
            return v.getFloat(row);
        }
        if (type instanceof DoubleType) {
            return v.getDouble(row);
        }
        if (type instanceof StringType) {
            return v.getString(row);
        }
        if (type instanceof BinaryType) {
            return Arrays.toString(v.getBinary(row));
        }
        if (type instanceof DecimalType) {
            return v.getDecimal(row);
        }
        throw new AssertionError(type);
    }

    /** Kernel's own Parquet schema for a Delta schema (its converter is package-private). */
    private static MessageType kernelSchema(StructType schema) throws Exception {
        Class<?> utils = Class.forName("io.delta.kernel.defaults.internal.parquet.ParquetSchemaUtils");
        Method convert = utils.getDeclaredMethod("toParquetSchema", StructType.class);
        convert.setAccessible(true);
        return (MessageType) convert.invoke(null, schema);
    }

    /** The Delta schema of a Spark checkpoint, as Kernel reads checkpoints: the action columns with their fields. */
    private static StructType checkpointSchema() {
        StructType add = new StructType()
                .add("path", StringType.STRING)
                .add("partitionValues", new MapType(StringType.STRING, StringType.STRING, true))
                .add("size", LongType.LONG)
                .add("modificationTime", LongType.LONG)
                .add("dataChange", BooleanType.BOOLEAN)
                .add("stats", StringType.STRING)
                .add("tags", new MapType(StringType.STRING, StringType.STRING, true));
        StructType metaData = new StructType()
                .add("id", StringType.STRING)
                .add("name", StringType.STRING)
                .add("description", StringType.STRING)
                .add("format", new StructType().add("provider", StringType.STRING)
                        .add("options", new MapType(StringType.STRING, StringType.STRING, true)))
                .add("schemaString", StringType.STRING)
                .add("partitionColumns", new ArrayType(StringType.STRING, true))
                .add("configuration", new MapType(StringType.STRING, StringType.STRING, true))
                .add("createdTime", LongType.LONG);
        StructType protocol = new StructType()
                .add("minReaderVersion", IntegerType.INTEGER)
                .add("minWriterVersion", IntegerType.INTEGER)
                .add("readerFeatures", new ArrayType(StringType.STRING, true))
                .add("writerFeatures", new ArrayType(StringType.STRING, true));
        StructType txn = new StructType()
                .add("appId", StringType.STRING)
                .add("version", LongType.LONG)
                .add("lastUpdated", LongType.LONG);
        return new StructType().add("txn", txn).add("add", add).add("metaData", metaData).add("protocol", protocol);
    }
}
