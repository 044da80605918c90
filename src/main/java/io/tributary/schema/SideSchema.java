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

    /**
     * As {@link #compile}, for a pipeline opening a stream that exists: a registry subject whose latest version
     * cannot be the column is compiled at its newest version that can (see
     * {@code RegistrySchemaCompiler.compileNewestUsable}); every other source compiles as at create.
     */
    static SideSchema compileExisting(SchemaSource source, String field) {
        if (source instanceof SchemaSource.Registry registry) {
            return RegistrySchemaCompiler.compileNewestUsable(registry, field, SchemaCompiler.defaultPrefix(field));
        }
        return compile(source, field);
    }

    /** The Avro schema of the column, always nullable (a union with null first). */
    org.apache.avro.Schema columnSchema();

    /** A new decoder; decoders are not thread-safe. */
    Decoder newDecoder();

    /**
     * The source this side was compiled from, with a registry subject pinned to the version that defined the
     * column: compiling it again gives the same column even after new versions are registered. A side returned by
     * {@link #widenedFor} keeps the source of the side it widened. Empty for sides not compiled by {@link #compile}.
     */
    default java.util.Optional<SchemaSource> pinnedSource() {
        return java.util.Optional.empty();
    }

    /**
     * Schema evolution (registry sides): when the writer schema this message's framing names is a compatible version
     * whose column is this one plus nullable fields, the side built on it; otherwise empty, and the message decodes
     * into this side's column. Each writer schema is checked once.
     *
     * @throws SchemaRegistryUnavailableException the writer schema could not be fetched; retry later
     */
    default java.util.Optional<SideSchema> widenedFor(byte[] message) {
        return java.util.Optional.empty();
    }

    /**
     * Registry sides: the subject's versions before the one this side was built from, newest first. A table whose
     * column came from an earlier version than the latest (for example one that still has a field the latest
     * version removed) is written through one of these.
     *
     * @throws SchemaRegistryUnavailableException the registry could not be reached
     */
    default java.util.List<SideSchema> earlierVersions() {
        return java.util.List.of();
    }
}
