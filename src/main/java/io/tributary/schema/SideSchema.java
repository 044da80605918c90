package io.tributary.schema;

/** The compiled schema of one side of a stream: the column it becomes and how its bytes decode into it. */
public interface SideSchema {

    /**
     * Compiles and validates a schema (SPEC 4.1 and 4.2).
     *
     * @param field the request path of this side, for error messages, e.g.
     *              {@code schema_config.direct_schemas.payload_schema}
     * @throws InvalidSchemaException naming the offending field below {@code field} and the fix
     */
    static SideSchema compile(SchemaSource source, String field) {
        return SchemaCompiler.compile(source, field);
    }

    /** The Avro schema of the column, always nullable (a union with null first). */
    org.apache.avro.Schema columnSchema();

    /** A new decoder; decoders are not thread-safe. */
    Decoder newDecoder();

    /**
     * The source this side was compiled from, with a registry subject pinned to the version that defined the
     * column: compiling it again gives the same column even after new versions are registered. Empty for sides not
     * compiled by {@link #compile}.
     */
    default java.util.Optional<SchemaSource> pinnedSource() {
        return java.util.Optional.empty();
    }
}
