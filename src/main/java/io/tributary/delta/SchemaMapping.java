package io.tributary.delta;

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
import io.delta.kernel.types.VariantType;
import io.tributary.schema.AvroNullables;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import org.apache.avro.LogicalType;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;

/**
 * Avro row schema to Delta schema, and Delta types to the Spark SQL type text Unity Catalog shows. The mapping must
 * agree with what parquet-avro writes for the same Avro schema, so Delta readers find the types they expect.
 */
final class SchemaMapping {
    private SchemaMapping() {}

    static StructType toDelta(Schema rowSchema) {
        if (rowSchema.getType() != Schema.Type.RECORD) {
            throw new IllegalArgumentException("the row schema must be an Avro record, got " + rowSchema.getType());
        }
        return struct(rowSchema, "");
    }

    private static StructType struct(Schema record, String path) {
        List<StructField> fields = new ArrayList<>();
        for (Schema.Field f : record.getFields()) {
            String fieldPath = path.isEmpty() ? f.name() : path + "." + f.name();
            Schema s = f.schema();
            boolean nullable = isNullable(s);
            fields.add(new StructField(f.name(), type(nonNull(s, fieldPath), fieldPath), nullable));
        }
        return new StructType(fields);
    }

    static boolean isNullable(Schema s) {
        return AvroNullables.acceptsNull(s);
    }

    /**
     * The non-null branch of a {@code [null, X]} union, or the schema itself ({@link AvroNullables#nonNull}); a union
     * of more types has no Delta type.
     */
    static Schema nonNull(Schema s, String path) {
        if (s.getType() == Schema.Type.UNION
                && s.getTypes().stream().filter(t -> t.getType() != Schema.Type.NULL).count() != 1) {
            throw new IllegalArgumentException("column " + path + ": a union of " + s.getTypes().size()
                    + " types has no Delta type; only unions of null and one type are supported");
        }
        return AvroNullables.nonNull(s);
    }

    private static DataType type(Schema s, String path) {
        LogicalType logical = s.getLogicalType();
        switch (s.getType()) {
            case BOOLEAN:
                return BooleanType.BOOLEAN;
            case INT:
                if (logical instanceof LogicalTypes.Date) {
                    return DateType.DATE;
                }
                rejectLogical(logical, path);
                return IntegerType.INTEGER;
            case LONG:
                if (logical instanceof LogicalTypes.TimestampMicros) {
                    return TimestampType.TIMESTAMP;
                }
                if (logical instanceof LogicalTypes.LocalTimestampMicros) {
                    return TimestampNTZType.TIMESTAMP_NTZ;
                }
                rejectLogical(logical, path);
                return LongType.LONG;
            case FLOAT:
                return FloatType.FLOAT;
            case DOUBLE:
                return DoubleType.DOUBLE;
            case STRING:
            case ENUM:
                return StringType.STRING;
            case BYTES:
            case FIXED:
                if (logical instanceof LogicalTypes.Decimal d) {
                    if (d.getPrecision() > 38) {
                        throw new IllegalArgumentException("column " + path + ": decimal precision " + d.getPrecision()
                                + " exceeds Delta's maximum of 38");
                    }
                    return new DecimalType(d.getPrecision(), d.getScale());
                }
                rejectLogical(logical, path);
                return BinaryType.BINARY;
            case RECORD:
                return struct(s, path);
            case ARRAY: {
                Schema items = s.getElementType();
                return new ArrayType(type(nonNull(items, path + ".element"), path + ".element"), isNullable(items));
            }
            case MAP: {
                Schema values = s.getValueType();
                return new MapType(StringType.STRING, type(nonNull(values, path + ".value"), path + ".value"),
                        isNullable(values));
            }
            default:
                throw new IllegalArgumentException("column " + path + ": Avro type " + s.getType() + " has no Delta type");
        }
    }

    /**
     * Millisecond timestamps would be written as Parquet TIMESTAMP(MILLIS), which Delta does not define: the schema
     * side must hand us micros.
     */
    private static void rejectLogical(LogicalType logical, String path) {
        if (logical != null) {
            throw new IllegalArgumentException("column " + path + ": Avro logical type " + logical.getName()
                    + " is not supported in a table row; use timestamp-micros, local-timestamp-micros, date or decimal");
        }
    }

    static String sqlType(DataType t) {
        if (t instanceof BooleanType) {
            return "boolean";
        } else if (t instanceof ByteType) {
            return "tinyint";
        } else if (t instanceof ShortType) {
            return "smallint";
        } else if (t instanceof IntegerType) {
            return "int";
        } else if (t instanceof LongType) {
            return "bigint";
        } else if (t instanceof FloatType) {
            return "float";
        } else if (t instanceof DoubleType) {
            return "double";
        } else if (t instanceof StringType) {
            return "string";
        } else if (t instanceof BinaryType) {
            return "binary";
        } else if (t instanceof DateType) {
            return "date";
        } else if (t instanceof TimestampType) {
            return "timestamp";
        } else if (t instanceof TimestampNTZType) {
            return "timestamp_ntz";
        } else if (t instanceof VariantType) {
            return "variant";
        } else if (t instanceof DecimalType d) {
            return "decimal(" + d.getPrecision() + "," + d.getScale() + ")";
        } else if (t instanceof ArrayType a) {
            return "array<" + sqlType(a.getElementType()) + ">";
        } else if (t instanceof MapType m) {
            return "map<" + sqlType(m.getKeyType()) + "," + sqlType(m.getValueType()) + ">";
        } else if (t instanceof StructType s) {
            return s.fields().stream().map(f -> quote(f.getName()) + ":" + sqlType(f.getDataType()))
                    .collect(Collectors.joining(",", "struct<", ">"));
        }
        return t.toString().toLowerCase(java.util.Locale.ROOT);
    }

    /** Spark quotes field names that are not plain identifiers. */
    private static String quote(String name) {
        return name.matches("[A-Za-z_][A-Za-z0-9_]*") ? name : "`" + name.replace("`", "``") + "`";
    }
}
