package io.tributary.schema;

import java.util.Optional;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.avro.Schema;

/**
 * A side compiled by {@link SchemaCompiler}. It can build itself again under another record-name prefix, from the
 * same (already fetched) schema, when {@link StreamSchema} finds key and value sharing record names.
 */
final class CompiledSide implements SideSchema {
    private final SchemaSource pinned;
    private final String recordPrefix;
    private final Schema columnSchema;
    private final Supplier<Decoder> decoders;
    private final Function<String, CompiledSide> rebuild;
    /** Registry sides only. */
    private final RegistryEvolution evolution;
    private final int version;

    CompiledSide(SchemaSource pinned, String recordPrefix, Schema columnSchema, Supplier<Decoder> decoders,
                 Function<String, CompiledSide> rebuild) {
        this(pinned, recordPrefix, columnSchema, decoders, rebuild, null, 0);
    }

    CompiledSide(SchemaSource pinned, String recordPrefix, Schema columnSchema, Supplier<Decoder> decoders,
                 Function<String, CompiledSide> rebuild, RegistryEvolution evolution, int version) {
        this.evolution = evolution;
        this.version = version;
        this.pinned = pinned;
        this.recordPrefix = recordPrefix;
        this.columnSchema = ColumnTypes.nullable(columnSchema);
        this.decoders = decoders;
        this.rebuild = rebuild;
    }

    @Override
    public Schema columnSchema() {
        return columnSchema;
    }

    @Override
    public Decoder newDecoder() {
        return decoders.get();
    }

    @Override
    public Optional<SchemaSource> pinnedSource() {
        return Optional.of(pinned);
    }

    @Override
    public Optional<SideSchema> widenedFor(byte[] message) {
        return evolution == null ? Optional.empty() : evolution.widenedFor(message).map(s -> s);
    }

    @Override
    public java.util.List<SideSchema> earlierVersions() {
        return evolution == null || version <= 0 ? java.util.List.of()
                : java.util.List.copyOf(evolution.earlierVersions(version));
    }

    CompiledSide withRecordPrefix(String prefix) {
        return prefix.equals(recordPrefix) ? this : rebuild.apply(prefix);
    }

    @Override
    public String toString() {
        return "SideSchema[" + pinned.getClass().getSimpleName() + ", " + columnSchema + "]";
    }
}
