package io.tributary.schema;

/** Registry sources: being built (phase 2). */
final class RegistrySchemaCompiler {
    private RegistrySchemaCompiler() {}

    static CompiledSide compile(SchemaSource.Registry source, String field, RecordNames names) {
        throw new InvalidSchemaException(field, "schema registries are not supported yet; declare the schema inline"
                + " under direct_schemas");
    }
}
