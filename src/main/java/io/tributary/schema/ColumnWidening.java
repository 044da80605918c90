package io.tributary.schema;

import java.util.Objects;
import org.apache.avro.LogicalType;
import org.apache.avro.Schema;

/**
 * Whether one column type is another plus nullable fields, at any depth: the only change a stream applies to its table
 * by itself (SPEC 4.2, docs/schema-evolution.md). Record names are ignored, since they are generated from field paths;
 * field order is too, since Delta readers match Parquet columns by name.
 */
final class ColumnWidening {
    private ColumnWidening() {}

    /** True when {@code candidate} has every field of {@code current}, typed alike, plus at least one nullable one. */
    static boolean widens(Schema current, Schema candidate) {
        int[] added = {0};
        return covers(current, candidate, added) && added[0] > 0;
    }

    private static boolean covers(Schema current, Schema candidate, int[] added) {
        if (ColumnTypes.isNullable(current) != ColumnTypes.isNullable(candidate)) {
            return false;
        }
        Schema c = ColumnTypes.nonNull(current);
        Schema n = ColumnTypes.nonNull(candidate);
        if (c.getType() != n.getType()) {
            return false;
        }
        return switch (c.getType()) {
            case RECORD -> {
                for (Schema.Field f : c.getFields()) {
                    Schema.Field g = n.getField(f.name());
                    if (g == null || !covers(f.schema(), g.schema(), added)) {
                        yield false;
                    }
                }
                for (Schema.Field g : n.getFields()) {
                    if (c.getField(g.name()) == null) {
                        if (!ColumnTypes.isNullable(g.schema())) {
                            yield false;
                        }
                        added[0]++;
                    }
                }
                yield true;
            }
            case ARRAY -> covers(c.getElementType(), n.getElementType(), added);
            case MAP -> covers(c.getValueType(), n.getValueType(), added);
            case FIXED -> c.getFixedSize() == n.getFixedSize() && sameLogical(c, n);
            default -> sameLogical(c, n);
        };
    }

    private static boolean sameLogical(Schema a, Schema b) {
        LogicalType x = a.getLogicalType();
        LogicalType y = b.getLogicalType();
        return Objects.equals(x, y);
    }
}
