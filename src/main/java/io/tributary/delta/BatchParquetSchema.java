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
import java.util.ArrayList;
import java.util.List;
import org.apache.parquet.schema.GroupType;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.LogicalTypeAnnotation.TimeUnit;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Type;
import org.apache.parquet.schema.Type.Repetition;
import org.apache.parquet.schema.Types;

/**
 * The Parquet schema Kernel's own writer gives a {@link StructType} (Kernel's {@code ParquetSchemaUtils} is
 * package-private): three-level {@code LIST} and {@code MAP} groups as Spark and Kernel read them, timestamps as
 * INT64 microseconds, decimals by precision in INT32, INT64 or a fixed-length array. {@link BatchParquetWriter} writes
 * Kernel's checkpoints with it; {@code BatchParquetWriterTest} checks it equals Kernel's for every type. Field ids
 * (column mapping) are not carried over: a checkpoint's schema has none, and no other Parquet Kernel writes here. The
 * message name is Kernel's too, so the two writers' footers are equal.
 */
final class BatchParquetSchema {
    private BatchParquetSchema() {}

    static MessageType of(StructType schema) {
        return new MessageType("DefaultKernelSchema", fields(schema));
    }

    /** Bytes of the smallest two's-complement array that holds every unscaled value of {@code precision} digits. */
    static int decimalBytes(int precision) {
        int bytes = 1;
        while (Math.pow(2, 8 * bytes - 1) < Math.pow(10, precision)) {
            bytes++;
        }
        return bytes;
    }

    private static List<Type> fields(StructType struct) {
        List<Type> out = new ArrayList<>();
        for (StructField field : struct.fields()) {
            out.add(type(field.getName(), field.getDataType(), field.isNullable() ? Repetition.OPTIONAL : Repetition.REQUIRED));
        }
        return out;
    }

    private static Type type(String name, DataType type, Repetition repetition) {
        if (type instanceof StructType struct) {
            return new GroupType(repetition, name, fields(struct));
        }
        if (type instanceof ArrayType array) {
            Type element = type("element", array.getElementType(),
                    array.containsNull() ? Repetition.OPTIONAL : Repetition.REQUIRED);
            return Types.buildGroup(repetition).as(LogicalTypeAnnotation.listType())
                    .addField(Types.repeatedGroup().addField(element).named("list")).named(name);
        }
        if (type instanceof MapType map) {
            Type key = type("key", map.getKeyType(), Repetition.REQUIRED);
            Type value = type("value", map.getValueType(),
                    map.isValueContainsNull() ? Repetition.OPTIONAL : Repetition.REQUIRED);
            return Types.buildGroup(repetition).as(LogicalTypeAnnotation.mapType())
                    .addField(Types.repeatedGroup().addField(key).addField(value).named("key_value")).named(name);
        }
        return primitive(name, type, repetition);
    }

    private static Type primitive(String name, DataType type, Repetition repetition) {
        if (type instanceof BooleanType) {
            return Types.primitive(PrimitiveTypeName.BOOLEAN, repetition).named(name);
        }
        // Kernel writes bytes and shorts as plain INT32 too, without an INT(8) / INT(16) annotation.
        if (type instanceof ByteType || type instanceof ShortType || type instanceof IntegerType) {
            return Types.primitive(PrimitiveTypeName.INT32, repetition).named(name);
        }
        if (type instanceof LongType) {
            return Types.primitive(PrimitiveTypeName.INT64, repetition).named(name);
        }
        if (type instanceof FloatType) {
            return Types.primitive(PrimitiveTypeName.FLOAT, repetition).named(name);
        }
        if (type instanceof DoubleType) {
            return Types.primitive(PrimitiveTypeName.DOUBLE, repetition).named(name);
        }
        if (type instanceof StringType) {
            return Types.primitive(PrimitiveTypeName.BINARY, repetition).as(LogicalTypeAnnotation.stringType()).named(name);
        }
        if (type instanceof BinaryType) {
            return Types.primitive(PrimitiveTypeName.BINARY, repetition).named(name);
        }
        if (type instanceof DateType) {
            return Types.primitive(PrimitiveTypeName.INT32, repetition).as(LogicalTypeAnnotation.dateType()).named(name);
        }
        if (type instanceof TimestampType) {
            return Types.primitive(PrimitiveTypeName.INT64, repetition)
                    .as(LogicalTypeAnnotation.timestampType(true, TimeUnit.MICROS)).named(name);
        }
        if (type instanceof TimestampNTZType) {
            return Types.primitive(PrimitiveTypeName.INT64, repetition)
                    .as(LogicalTypeAnnotation.timestampType(false, TimeUnit.MICROS)).named(name);
        }
        if (type instanceof DecimalType decimal) {
            LogicalTypeAnnotation annotation =
                    LogicalTypeAnnotation.decimalType(decimal.getScale(), decimal.getPrecision());
            if (decimal.getPrecision() <= 9) {
                return Types.primitive(PrimitiveTypeName.INT32, repetition).as(annotation).named(name);
            }
            if (decimal.getPrecision() <= 18) {
                return Types.primitive(PrimitiveTypeName.INT64, repetition).as(annotation).named(name);
            }
            return Types.primitive(PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY, repetition)
                    .length(decimalBytes(decimal.getPrecision())).as(annotation).named(name);
        }
        throw new UnsupportedOperationException("column " + name + " of type " + type
                + " cannot be written to Parquet by this engine");
    }
}
