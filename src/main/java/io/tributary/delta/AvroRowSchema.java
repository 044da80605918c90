package io.tributary.delta;

import io.delta.kernel.types.ArrayType;
import io.delta.kernel.types.BinaryType;
import io.delta.kernel.types.BooleanType;
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
import io.tributary.schema.AvroNullables;
import java.util.ArrayList;
import java.util.List;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;

/**
 * Delta schema to an Avro row schema that {@link SchemaMapping#toDelta} maps back to the same Delta schema, so a
 * writer that only knows a table's location (the backfill) can write rows {@link TableWriter#writeDataFile} accepts.
 * Record names follow the column path: parquet-avro needs them distinct.
 */
final class AvroRowSchema {
    private AvroRowSchema() {}

    static Schema of(StructType table) {
        return record(table, "tributary_row", "");
    }

    private static Schema record(StructType struct, String name, String path) {
        List<Schema.Field> fields = new ArrayList<>();
        for (StructField f : struct.fields()) {
            String fieldPath = path.isEmpty() ? f.getName() : path + "." + f.getName();
            Schema type = type(f.getDataType(), fieldPath);
            fields.add(new Schema.Field(f.getName(), f.isNullable() ? AvroNullables.nullable(type) : type, null,
                    f.isNullable() ? Schema.Field.NULL_DEFAULT_VALUE : null));
        }
        return Schema.createRecord(name, null, null, false, fields);
    }

    private static Schema type(DataType t, String path) {
        if (t instanceof BooleanType) {
            return Schema.create(Schema.Type.BOOLEAN);
        } else if (t instanceof IntegerType) {
            return Schema.create(Schema.Type.INT);
        } else if (t instanceof LongType) {
            return Schema.create(Schema.Type.LONG);
        } else if (t instanceof FloatType) {
            return Schema.create(Schema.Type.FLOAT);
        } else if (t instanceof DoubleType) {
            return Schema.create(Schema.Type.DOUBLE);
        } else if (t instanceof StringType) {
            return Schema.create(Schema.Type.STRING);
        } else if (t instanceof BinaryType) {
            return Schema.create(Schema.Type.BYTES);
        } else if (t instanceof DateType) {
            return LogicalTypes.date().addToSchema(Schema.create(Schema.Type.INT));
        } else if (t instanceof TimestampType) {
            return LogicalTypes.timestampMicros().addToSchema(Schema.create(Schema.Type.LONG));
        } else if (t instanceof TimestampNTZType) {
            return LogicalTypes.localTimestampMicros().addToSchema(Schema.create(Schema.Type.LONG));
        } else if (t instanceof DecimalType d) {
            return LogicalTypes.decimal(d.getPrecision(), d.getScale()).addToSchema(Schema.create(Schema.Type.BYTES));
        } else if (t instanceof StructType st) {
            return record(st, "r_" + path.replaceAll("[^A-Za-z0-9_]", "_") + "_" + Integer.toHexString(path.hashCode()), path);
        } else if (t instanceof ArrayType a) {
            Schema element = type(a.getElementType(), path + ".element");
            return Schema.createArray(a.containsNull() ? AvroNullables.nullable(element) : element);
        } else if (t instanceof MapType m && m.getKeyType() instanceof StringType) {
            Schema value = type(m.getValueType(), path + ".value");
            return Schema.createMap(m.isValueContainsNull() ? AvroNullables.nullable(value) : value);
        }
        throw new IllegalArgumentException("column " + path + " of type " + SchemaMapping.sqlType(t)
                + " cannot be written by Tributary (no matching Avro type)");
    }
}
