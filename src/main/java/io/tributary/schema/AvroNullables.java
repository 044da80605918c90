package io.tributary.schema;

import org.apache.avro.Schema;

/**
 * Nullable Avro types, the one place for them: a nullable column is a union with null first (Avro accepts a null
 * default only there, and an undecodable side is NULL), and a schema read from elsewhere (a backfill source) may put
 * null anywhere in its union.
 */
public final class AvroNullables {
    private AvroNullables() {}

    /** {@code schema} as a union with null first, unchanged when it already is one. */
    public static Schema nullable(Schema schema) {
        return isNullFirst(schema) ? schema : Schema.createUnion(Schema.create(Schema.Type.NULL), schema);
    }

    /** A union whose first branch is null: a null default is valid. */
    public static boolean isNullFirst(Schema schema) {
        return schema.getType() == Schema.Type.UNION && schema.getTypes().get(0).getType() == Schema.Type.NULL;
    }

    /** Null is a value of the type: the null type itself, or a union with a null branch anywhere. */
    public static boolean acceptsNull(Schema schema) {
        return schema.getType() == Schema.Type.NULL || schema.getType() == Schema.Type.UNION
                && schema.getTypes().stream().anyMatch(t -> t.getType() == Schema.Type.NULL);
    }

    /** The first branch of a union that is not null, or the schema itself when it is no union. */
    public static Schema nonNull(Schema schema) {
        if (schema.getType() != Schema.Type.UNION) {
            return schema;
        }
        return schema.getTypes().stream().filter(t -> t.getType() != Schema.Type.NULL).findFirst().orElseThrow(
                () -> new IllegalArgumentException("a union of null alone has no other type: " + schema));
    }
}
