package io.tributary.schema;

/** Where one side of a stream (the Kafka key or the Kafka value) takes its schema from. */
public sealed interface SchemaSource {

    /** No schema declared: the side is a plain UTF-8 string column. */
    record Plain() implements SchemaSource {}

    record JsonSchema(String text) implements SchemaSource {}

    record Avro(String text) implements SchemaSource {}

    record Protobuf(String text, String messageName) implements SchemaSource {}

    /**
     * A subject in a Confluent-compatible schema registry. The given version (the latest when null) defines the
     * column; messages are decoded with the writer schema their framing names and resolved to it.
     */
    record Registry(String subject, RegistryFormat format, RegistryAccess access, Integer version)
            implements SchemaSource {
        /** The subject's latest version. */
        public Registry(String subject, RegistryFormat format, RegistryAccess access) {
            this(subject, format, access, null);
        }
    }
}
