package io.tributary.schema;

import java.util.function.Supplier;
import org.apache.avro.Schema;

/**
 * A side compiled by {@link SchemaCompiler}. It remembers its source so that {@link StreamSchema} can compile it
 * again under another record-name prefix when key and value would otherwise share record names.
 */
final class CompiledSide implements SideSchema {
    private final SchemaSource source;
    private final String field;
    private final String recordPrefix;
    private final Schema columnSchema;
    private final Supplier<Decoder> decoders;

    CompiledSide(SchemaSource source, String field, String recordPrefix, Schema columnSchema,
                 Supplier<Decoder> decoders) {
        this.source = source;
        this.field = field;
        this.recordPrefix = recordPrefix;
        this.columnSchema = ColumnTypes.nullable(columnSchema);
        this.decoders = decoders;
    }

    @Override
    public Schema columnSchema() {
        return columnSchema;
    }

    @Override
    public Decoder newDecoder() {
        return decoders.get();
    }

    String recordPrefix() {
        return recordPrefix;
    }

    CompiledSide withRecordPrefix(String prefix) {
        return prefix.equals(recordPrefix) ? this : SchemaCompiler.compile(source, field, prefix);
    }

    @Override
    public String toString() {
        return "SideSchema[" + source.getClass().getSimpleName() + ", " + columnSchema + "]";
    }
}
