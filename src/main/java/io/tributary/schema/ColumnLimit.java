package io.tributary.schema;

/**
 * The most columns one side of a stream may have: struct fields at any depth (SPEC 6, {@code TRIBUTARY_MAX_COLUMNS}).
 * A schema with hundreds of thousands of fields would make a table no reader handles well and costs seconds of CPU
 * and much memory to compile, so every compiler counts as it goes and stops at the limit. Process-wide because the
 * same limit must hold wherever a schema is compiled: at create, in a pipeline, for a new registry version.
 */
public final class ColumnLimit {
    public static final int DEFAULT = 10_000;
    private static volatile int max = DEFAULT;

    private ColumnLimit() {}

    /** Set once at start-up from configuration. */
    public static void set(int limit) {
        if (limit < 1) {
            throw new IllegalArgumentException("TRIBUTARY_MAX_COLUMNS must be at least 1, not " + limit);
        }
        max = limit;
    }

    public static int max() {
        return max;
    }

    /** A counter for one compile. */
    static final class Budget {
        private final int limit = max;
        private int used;

        /** Counts {@code n} more columns; fails naming the field once the side has more than the limit. */
        void add(String field, int n) {
            used += n;
            if (used > limit) {
                throw tooMany(field, limit);
            }
        }
    }

    static InvalidSchemaException tooMany(String field, int limit) {
        return new InvalidSchemaException(field, "has more than " + limit + " columns (struct fields at any depth);"
                + " split the schema or keep the fields you need as raw JSON text, or raise TRIBUTARY_MAX_COLUMNS");
    }
}
