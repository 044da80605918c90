package io.tributary.schema;

import java.util.List;
import org.apache.avro.JsonProperties;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;

/**
 * The Avro shapes of the column types in SPEC 4.1. parquet-avro writes Parquet from them and the Delta schema is
 * derived from them, so each logical type here is chosen for what it becomes in Parquet: timestamp-micros is Delta
 * TIMESTAMP, local-timestamp-micros is TIMESTAMP_NTZ, date is DATE, decimal is DECIMAL(p,s).
 */
final class ColumnTypes {
    /** Delta's largest decimal precision. */
    static final int MAX_DECIMAL_PRECISION = 38;

    private ColumnTypes() {}

    static Schema string() {
        return Schema.create(Schema.Type.STRING);
    }

    static Schema timestamp() {
        return LogicalTypes.timestampMicros().addToSchema(Schema.create(Schema.Type.LONG));
    }

    static Schema timestampNtz() {
        return LogicalTypes.localTimestampMicros().addToSchema(Schema.create(Schema.Type.LONG));
    }

    static Schema date() {
        return LogicalTypes.date().addToSchema(Schema.create(Schema.Type.INT));
    }

    static Schema decimal(int precision, int scale) {
        return LogicalTypes.decimal(precision, scale).addToSchema(Schema.create(Schema.Type.BYTES));
    }

    /** A union with null first, so that null is the field default and NULL the value of an undecodable side. */
    static Schema nullable(Schema schema) {
        return AvroNullables.nullable(schema);
    }

    static boolean isNullable(Schema schema) {
        return AvroNullables.isNullFirst(schema);
    }

    /** The non-null member of a nullable column type, or the type itself. */
    static Schema nonNull(Schema schema) {
        return AvroNullables.isNullFirst(schema) && schema.getTypes().size() == 2 ? AvroNullables.nonNull(schema)
                : schema;
    }

    static Schema.Field field(String name, Schema schema) {
        return isNullable(schema)
                ? new Schema.Field(name, schema, null, JsonProperties.NULL_VALUE)
                : new Schema.Field(name, schema);
    }

    static Schema record(String name, List<Schema.Field> fields) {
        return Schema.createRecord(name, null, null, false, fields);
    }
}
