package io.tributary.schema;

/** Where one side of a stream (the Kafka key or the Kafka value) takes its schema from. */
public sealed interface SchemaSource {

    /** No schema declared: the side is a plain UTF-8 string column. */
    record Plain() implements SchemaSource {}

    record JsonSchema(String text) implements SchemaSource {}

    record Avro(String text) implements SchemaSource {}

    record Protobuf(String text, String messageName) implements SchemaSource {}

    /** A subject in a Confluent-compatible schema registry; its latest version defines the column. */
    record Registry(String subject, RegistryFormat format, RegistryAccess access) implements SchemaSource {}
}
