package io.tributary.schema;

import java.util.function.Function;

/** Chooses the compiler for a source and the request field each one reports errors on. */
final class SchemaCompiler {
    private SchemaCompiler() {}

    static SideSchema compile(SchemaSource source, String field) {
        return compile(source, field, defaultPrefix(field));
    }

    static CompiledSide compile(SchemaSource source, String field, String recordPrefix) {
        if (source == null) {
            throw new InvalidSchemaException(field, "no schema source given");
        }
        RecordNames names = new RecordNames(recordPrefix);
        Function<String, CompiledSide> rebuild = prefix -> compile(source, field, prefix);
        if (source instanceof SchemaSource.Plain) {
            return new CompiledSide(source, recordPrefix, ColumnTypes.string(), PlainDecoder::new, rebuild);
        }
        if (source instanceof SchemaSource.JsonSchema json) {
            JsonSchemaCompiler.Compiled c = JsonSchemaCompiler.compile(json.text(), field + ".json_schema", names);
            return new CompiledSide(source, recordPrefix, c.columnSchema(), c::newDecoder, rebuild);
        }
        if (source instanceof SchemaSource.Avro avro) {
            AvroSchemaCompiler.Compiled c = AvroSchemaCompiler.compile(avro.text(), field + ".avro_schema", names);
            return new CompiledSide(source, recordPrefix, c.columnSchema(), c::newDecoder, rebuild);
        }
        if (source instanceof SchemaSource.Protobuf proto) {
            ProtoSchemaCompiler.Compiled c = ProtoSchemaCompiler.compile(proto.text(), proto.messageName(),
                    field + ".proto_schema", names);
            return new CompiledSide(source, recordPrefix, c.columnSchema(), c::newDecoder, rebuild);
        }
        if (source instanceof SchemaSource.Registry registry) {
            return RegistrySchemaCompiler.compile(registry, field, recordPrefix);
        }
        throw new InvalidSchemaException(field, "unsupported schema source " + source.getClass().getSimpleName());
    }

    /**
     * Record names start with the last part of the request field ({@code key_schema}, {@code payload_schema}), so a
     * key and a value compiled for one stream never share a record name.
     */
    static String defaultPrefix(String field) {
        String last = field == null ? "" : field.substring(field.lastIndexOf('.') + 1);
        return last.isEmpty() ? "column" : FieldNames.columnName(last);
    }
}
