package io.tributary.delta;

import io.delta.kernel.expressions.Column;
import io.delta.kernel.expressions.Literal;
import io.delta.kernel.statistics.DataFileStatistics;
import io.delta.kernel.types.ArrayType;
import io.delta.kernel.types.DataType;
import io.delta.kernel.types.DateType;
import io.delta.kernel.types.DecimalType;
import io.delta.kernel.types.DoubleType;
import io.delta.kernel.types.FloatType;
import io.delta.kernel.types.IntegerType;
import io.delta.kernel.types.LongType;
import io.delta.kernel.types.MapType;
import io.delta.kernel.types.StringType;
import io.delta.kernel.types.StructField;
import io.delta.kernel.types.StructType;
import io.delta.kernel.types.TimestampNTZType;
import io.delta.kernel.types.TimestampType;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.avro.Schema;
import org.apache.parquet.column.statistics.Statistics;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.io.api.Binary;

/**
 * Delta per-file statistics taken from the column-chunk statistics the Parquet writer keeps anyway (no second pass over
 * the rows): per leaf of the nested structs the null count and, for the types Delta bounds, min and max, with the same
 * meaning as {@link FileStatistics} gives them. Parquet's leaf null count counts a leaf under a null struct as null,
 * as Delta does. Strings are compared by unsigned UTF-8 bytes in both, and truncated by {@link StringStats}' rules;
 * a float column that saw NaN gets no bounds (Parquet's max is then NaN). Arrays and maps get only their own null count,
 * which the leaves cannot give (an empty list and a null one both leave the element undefined): the writer counts those
 * ({@link ValueWriters#nullCounter}).
 */
final class FooterStatistics {
    private FooterStatistics() {}

    static DataFileStatistics of(Schema rowSchema, StructType schema, ValueWriters.Struct plan, ParquetMetadata footer,
            long numRecords) {
        Map<List<String>, Statistics<?>> chunks = new HashMap<>();
        for (BlockMetaData block : footer.getBlocks()) {
            for (ColumnChunkMetaData column : block.getColumns()) {
                List<String> path = Arrays.asList(column.getPath().toArray());
                Statistics<?> s = column.getStatistics();
                Statistics<?> merged = chunks.get(path);
                if (merged == null) {
                    chunks.put(path, s.copy());
                } else {
                    merged.mergeStatistics(s);
                }
            }
        }
        Map<Column, Literal> min = new HashMap<>();
        Map<Column, Literal> max = new HashMap<>();
        Map<Column, Long> nulls = new HashMap<>();
        struct(rowSchema, schema, plan, new Column(new String[0]), new ArrayList<>(), chunks, numRecords, min, max,
                nulls);
        return new DataFileStatistics(numRecords, min, max, nulls, Optional.empty());
    }

    private static void struct(Schema record, StructType struct, ValueWriters.Struct plan, Column parent,
            List<String> parquetPath, Map<List<String>, Statistics<?>> chunks, long numRecords,
            Map<Column, Literal> min, Map<Column, Literal> max, Map<Column, Long> nulls) {
        List<Schema.Field> avroFields = record.getFields();
        for (int i = 0; i < avroFields.size(); i++) {
            StructField f = struct.at(i);
            Column col = parent.appendNestedField(f.getName());
            DataType type = f.getDataType();
            List<String> path = new ArrayList<>(parquetPath);
            path.add(avroFields.get(i).name());
            if (type instanceof StructType st) {
                Schema avro = SchemaMapping.nonNull(avroFields.get(i).schema(), f.getName());
                struct(avro, st, (ValueWriters.Struct) plan.fields[i], col, path, chunks, numRecords, min, max,
                        nulls);
            } else if (type instanceof ArrayType || type instanceof MapType) {
                nulls.put(col, plan.fields[i].nullCounter()[0]);
            } else {
                Statistics<?> s = chunks.get(path);
                if (s == null) {
                    throw new IllegalStateException("no column chunk for " + String.join(".", path));
                }
                if (s.getNumNulls() < 0) {
                    // The writer kept no null count (statistics disabled): nothing to say rather than a wrong 0.
                    continue;
                }
                nulls.put(col, s.getNumNulls());
                if (s.hasNonNullValue()) {
                    Literal lower = literal(type, s.genericGetMin(), false);
                    Literal upper = literal(type, s.genericGetMax(), true);
                    if (lower != null && upper != null) {
                        min.put(col, lower);
                        max.put(col, upper);
                    } else if (lower != null && type instanceof StringType) {
                        min.put(col, lower); // a string max too long to truncate has no bound; its min still does
                    }
                }
            }
        }
    }

    /** The bound of a leaf chunk as Delta keeps it, or null where Delta keeps none (booleans, binary, NaN). */
    private static Literal literal(DataType type, Object value, boolean upper) {
        if (type instanceof IntegerType) {
            return Literal.ofInt((Integer) value);
        }
        if (type instanceof LongType) {
            return Literal.ofLong((Long) value);
        }
        if (type instanceof DateType) {
            return Literal.ofDate((Integer) value);
        }
        if (type instanceof TimestampType) {
            return Literal.ofTimestamp((Long) value);
        }
        if (type instanceof TimestampNTZType) {
            return Literal.ofTimestampNtz((Long) value);
        }
        if (type instanceof DoubleType) {
            double d = (Double) value;
            return Double.isNaN(d) ? null : Literal.ofDouble(d);
        }
        if (type instanceof FloatType) {
            float f = (Float) value;
            return Float.isNaN(f) ? null : Literal.ofFloat(f);
        }
        if (type instanceof DecimalType dt) {
            BigDecimal d = new BigDecimal(new BigInteger(((Binary) value).getBytes()), dt.getScale());
            return Literal.ofDecimal(d, dt.getPrecision(), dt.getScale());
        }
        if (type instanceof StringType) {
            String s = new String(((Binary) value).getBytes(), StandardCharsets.UTF_8);
            String bound = upper ? StringStats.truncateMax(s) : StringStats.truncateMin(s);
            return bound == null ? null : Literal.ofString(bound);
        }
        return null;
    }
}
