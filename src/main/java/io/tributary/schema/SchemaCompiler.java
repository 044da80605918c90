package io.tributary.schema;

/** Placeholder until the schema compilers land: only plain strings compile. */
final class SchemaCompiler {
    private SchemaCompiler() {}

    static SideSchema compile(SchemaSource source, String field) {
        throw new UnsupportedOperationException("schema compilation is being built");
    }
}
