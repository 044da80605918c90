package io.tributary.schema;

import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.FileDescriptor;
import java.util.ArrayList;
import java.util.List;
import org.apache.avro.Schema;

/** .proto text plus message name to a column type and decoders (SPEC 4.1, 4.2). */
final class ProtoSchemaCompiler {
    record Compiled(Descriptor message, Schema columnSchema, ProtoTypeMapper.Converter converter,
            ProtoWireReader.Plan plan) {
        Decoder newDecoder() {
            return new ProtoDecoder(message, converter, plan);
        }
    }

    private ProtoSchemaCompiler() {}

    /** @param field the request field of the proto_schema object */
    static Compiled compile(String text, String messageName, String field, RecordNames names) {
        FileDescriptor file = ProtoFileParser.parse(text, field + ".schema_text");
        Descriptor message = findMessage(file, messageName, field + ".message_name");
        ProtoTypeMapper.Mapped mapped = new ProtoTypeMapper(field + ".schema_text", names).map(message);
        return new Compiled(message, mapped.type(), mapped.converter(), new ProtoWireReader.Plan(message,
                mapped.type()));
    }

    static Descriptor findMessage(FileDescriptor file, String messageName, String field) {
        List<String> known = new ArrayList<>();
        for (Descriptor d : file.getMessageTypes()) {
            collect(d, known);
        }
        if (messageName == null || messageName.isBlank()) {
            throw new InvalidSchemaException(field, "is missing; name the message of the Kafka records, fully"
                    + " qualified, one of " + known);
        }
        String pkg = file.getPackage();
        if (!pkg.isEmpty() && !messageName.startsWith(pkg + ".")) {
            throw new InvalidSchemaException(field, "`" + messageName + "` is not fully qualified with the declared"
                    + " package `" + pkg + "`; use e.g. `" + pkg + "." + messageName.substring(
                    messageName.lastIndexOf('.') + 1) + "` (messages in the schema: " + known + ")");
        }
        for (Descriptor d : file.getMessageTypes()) {
            Descriptor found = find(d, messageName);
            if (found != null) {
                return found;
            }
        }
        throw new InvalidSchemaException(field, "`" + messageName + "` is not a message of the schema; use one of "
                + known);
    }

    private static Descriptor find(Descriptor d, String fullName) {
        if (d.getFullName().equals(fullName) && !d.getOptions().getMapEntry()) {
            return d;
        }
        for (Descriptor nested : d.getNestedTypes()) {
            Descriptor found = find(nested, fullName);
            if (found != null) {
                return found;
            }
        }
        return null;
    }

    private static void collect(Descriptor d, List<String> into) {
        if (d.getOptions().getMapEntry()) {
            return;
        }
        into.add(d.getFullName());
        for (Descriptor nested : d.getNestedTypes()) {
            collect(nested, into);
        }
    }
}
