package io.tributary.schema;

import org.apache.avro.Schema;
import org.apache.avro.SchemaParseException;

/** Avro schema text to a column type and decoders of binary datums written with that schema. */
final class AvroSchemaCompiler {
    record Compiled(Schema writerSchema, Schema columnSchema, AvroValueReader root) {
        Decoder newDecoder() {
            return new AvroDecoder(writerSchema, writerSchema, root);
        }
    }

    private AvroSchemaCompiler() {}

    static Compiled compile(String text, String field, RecordNames names) {
        if (text == null || text.isBlank()) {
            throw new InvalidSchemaException(field, "is empty; give an Avro schema such as "
                    + "{\"type\": \"record\", \"name\": \"Event\", \"fields\": [{\"name\": \"id\", \"type\": \"string\"}]}");
        }
        Schema schema = parse(text, field);
        AvroTypeMapper.Mapped mapped = new AvroTypeMapper(field, names).map(schema);
        return new Compiled(schema, mapped.type(), mapped.reader());
    }

    static Schema parse(String text, String field) {
        try {
            return new Schema.Parser().parse(text);
        } catch (SchemaParseException e) {
            if (e.getCause() instanceof com.fasterxml.jackson.core.JsonProcessingException json) {
                String at = json.getLocation() == null ? "" : " at line " + json.getLocation().getLineNr()
                        + ", column " + json.getLocation().getColumnNr();
                throw new InvalidSchemaException(field, "is not a valid Avro schema: it is not valid JSON ("
                        + LibraryMessages.clean(json.getOriginalMessage()) + at + "); an Avro schema is a JSON "
                        + "document");
            }
            throw new InvalidSchemaException(field, "is not a valid Avro schema: " + LibraryMessages.clean(
                    e.getMessage()) + "; fix the schema text (see the Avro specification)");
        } catch (RuntimeException e) {
            throw new InvalidSchemaException(field, "is not a valid Avro schema: "
                    + LibraryMessages.clean(e.getMessage()));
        }
    }
}
