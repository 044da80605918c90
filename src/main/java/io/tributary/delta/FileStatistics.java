package io.tributary.delta;

import io.delta.kernel.expressions.Column;
import io.delta.kernel.expressions.Literal;
import io.delta.kernel.statistics.DataFileStatistics;
import io.delta.kernel.types.StructType;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.apache.avro.Schema;
import org.apache.avro.generic.IndexedRecord;

/**
 * Delta per-file statistics (numRecords, minValues, maxValues, nullCount) gathered row by row while the file is
 * written, so the file is never read back. Min/max cover the leaf columns of nested structs, as Delta's own writers
 * do; arrays and maps only get a null count. Strings keep a 32-character prefix ({@link StringStats}) with Delta's rules for a max that
 * still bounds every value. The JSON is rendered by Kernel so its formats (e.g. timestamps) match what Delta readers
 * parse.
 */
final class FileStatistics {
    private final StructType schema;
    private final ColumnStats.Node[] top;
    private long numRecords;

    FileStatistics(Schema rowSchema, StructType schema) {
        this.schema = schema;
        this.top = ColumnStats.children(rowSchema, schema, new Column(new String[0]));
    }

    void add(IndexedRecord row) {
        numRecords++;
        for (int i = 0; i < top.length; i++) {
            top[i].add(row.get(i));
        }
    }

    DataFileStatistics result() {
        Map<Column, Literal> min = new HashMap<>();
        Map<Column, Literal> max = new HashMap<>();
        Map<Column, Long> nulls = new HashMap<>();
        for (ColumnStats.Node n : top) {
            n.collect(min, max, nulls);
        }
        return new DataFileStatistics(numRecords, min, max, nulls, Optional.empty());
    }

    String json() {
        return result().serializeAsJson(schema);
    }
}
