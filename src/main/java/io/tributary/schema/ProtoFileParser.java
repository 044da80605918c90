package io.tributary.schema;

import com.google.protobuf.DescriptorProtos.DescriptorProto;
import com.google.protobuf.DescriptorProtos.EnumDescriptorProto;
import com.google.protobuf.DescriptorProtos.EnumOptions;
import com.google.protobuf.DescriptorProtos.EnumValueDescriptorProto;
import com.google.protobuf.DescriptorProtos.FieldDescriptorProto;
import com.google.protobuf.DescriptorProtos.FileDescriptorProto;
import com.google.protobuf.DescriptorProtos.MessageOptions;
import com.google.protobuf.DescriptorProtos.OneofDescriptorProto;
import com.google.protobuf.Descriptors;
import com.google.protobuf.Descriptors.FileDescriptor;
import com.google.protobuf.TimestampProto;
import com.google.protobuf.WrappersProto;
import com.squareup.wire.Syntax;
import com.squareup.wire.schema.Field;
import com.squareup.wire.schema.Location;
import com.squareup.wire.schema.internal.parser.EnumConstantElement;
import com.squareup.wire.schema.internal.parser.EnumElement;
import com.squareup.wire.schema.internal.parser.FieldElement;
import com.squareup.wire.schema.internal.parser.MessageElement;
import com.squareup.wire.schema.internal.parser.OneOfElement;
import com.squareup.wire.schema.internal.parser.OptionElement;
import com.squareup.wire.schema.internal.parser.ProtoFileElement;
import com.squareup.wire.schema.internal.parser.ProtoParser;
import com.squareup.wire.schema.internal.parser.TypeElement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * .proto text (proto2 or proto3) to a linked protobuf-java {@link FileDescriptor}, in process. Square Wire's parser
 * (the one Confluent's and Apicurio's Protobuf serdes use) reads the text into an element tree; this class turns the
 * tree into a FileDescriptorProto the way protoc would (map fields become nested *Entry messages, proto3
 * {@code optional} fields get synthetic oneofs) and protobuf-java links it, resolving type names by protobuf's scoping
 * rules and reporting undefined or duplicate names. Decoding then uses DynamicMessage on that descriptor.
 */
final class ProtoFileParser {
    static final String FILE_NAME = "schema.proto";
    private static final Map<String, FileDescriptor> ALLOWED_IMPORTS = Map.of(
            "google/protobuf/timestamp.proto", TimestampProto.getDescriptor(),
            "google/protobuf/wrappers.proto", WrappersProto.getDescriptor());
    private static final Map<String, FieldDescriptorProto.Type> SCALARS = Map.ofEntries(
            Map.entry("double", FieldDescriptorProto.Type.TYPE_DOUBLE),
            Map.entry("float", FieldDescriptorProto.Type.TYPE_FLOAT),
            Map.entry("int64", FieldDescriptorProto.Type.TYPE_INT64),
            Map.entry("uint64", FieldDescriptorProto.Type.TYPE_UINT64),
            Map.entry("int32", FieldDescriptorProto.Type.TYPE_INT32),
            Map.entry("fixed64", FieldDescriptorProto.Type.TYPE_FIXED64),
            Map.entry("fixed32", FieldDescriptorProto.Type.TYPE_FIXED32),
            Map.entry("bool", FieldDescriptorProto.Type.TYPE_BOOL),
            Map.entry("string", FieldDescriptorProto.Type.TYPE_STRING),
            Map.entry("bytes", FieldDescriptorProto.Type.TYPE_BYTES),
            Map.entry("uint32", FieldDescriptorProto.Type.TYPE_UINT32),
            Map.entry("sfixed32", FieldDescriptorProto.Type.TYPE_SFIXED32),
            Map.entry("sfixed64", FieldDescriptorProto.Type.TYPE_SFIXED64),
            Map.entry("sint32", FieldDescriptorProto.Type.TYPE_SINT32),
            Map.entry("sint64", FieldDescriptorProto.Type.TYPE_SINT64));

    private final String field;
    private final boolean proto3;

    private ProtoFileParser(String field, boolean proto3) {
        this.field = field;
        this.proto3 = proto3;
    }

    /** @param field the request field of the schema text, for errors */
    static FileDescriptor parse(String text, String field) {
        if (text == null || text.isBlank()) {
            throw new InvalidSchemaException(field, "is empty; give the .proto text, e.g. syntax = \"proto3\"; "
                    + "package com.example; message Event { string id = 1; }");
        }
        ProtoFileElement file;
        try {
            file = ProtoParser.Companion.parse(Location.get(FILE_NAME), text);
        } catch (RuntimeException e) {
            throw new InvalidSchemaException(field, "is not a valid .proto file: "
                    + LibraryMessages.clean(e.getMessage()));
        }
        // Counted before the descriptors are built, the expensive step on a file with very many fields.
        if (declaredFields(file.getTypes()) > ColumnLimit.max()) {
            throw ColumnLimit.tooMany(field, ColumnLimit.max());
        }
        List<FileDescriptor> dependencies = new ArrayList<>();
        FileDescriptorProto.Builder proto = FileDescriptorProto.newBuilder().setName(FILE_NAME);
        for (List<String> imports : List.of(file.getImports(), file.getPublicImports(), file.getWeakImports())) {
            for (String imported : imports) {
                FileDescriptor dependency = ALLOWED_IMPORTS.get(imported);
                if (dependency == null) {
                    throw new InvalidSchemaException(field, rejectedImport(imported));
                }
                proto.addDependency(imported);
                dependencies.add(dependency);
            }
        }
        boolean proto3 = file.getSyntax() == Syntax.PROTO_3;
        proto.setSyntax(proto3 ? "proto3" : "proto2");
        if (file.getPackageName() != null) {
            proto.setPackage(file.getPackageName());
        }
        ProtoFileParser parser = new ProtoFileParser(field, proto3);
        for (TypeElement type : file.getTypes()) {
            if (type instanceof MessageElement m) {
                proto.addMessageType(parser.message(m));
            } else if (type instanceof EnumElement e) {
                proto.addEnumType(enumType(e));
            }
        }
        try {
            return FileDescriptor.buildFrom(proto.build(), dependencies.toArray(FileDescriptor[]::new));
        } catch (Descriptors.DescriptorValidationException e) {
            throw new InvalidSchemaException(field, "does not define a consistent set of types: " + e.getMessage()
                    + "; declare every type a field uses in this text (only google.protobuf.Timestamp and the"
                    + " wrapper types can be imported)");
        }
    }

    private static long declaredFields(List<TypeElement> types) {
        long count = 0;
        for (TypeElement type : types) {
            if (type instanceof MessageElement m) {
                count += m.getFields().size();
                for (OneOfElement oneOf : m.getOneOfs()) {
                    count += oneOf.getFields().size();
                }
            }
            count += declaredFields(type.getNestedTypes());
        }
        return count;
    }

    /**
     * The full name of the message a Confluent frame's message indexes select in a writer schema. Only the parse is
     * needed (no linking, no import rules): a newer writer version may use anything for fields this stream does not
     * read.
     *
     * @throws IllegalArgumentException if the text does not parse or the indexes select no message
     */
    static String messageNameAt(String text, int[] indexes) {
        ProtoFileElement file = ProtoParser.Companion.parse(Location.get(FILE_NAME), text);
        List<TypeElement> level = file.getTypes();
        StringBuilder name = new StringBuilder(file.getPackageName() == null ? "" : file.getPackageName());
        for (int index : indexes) {
            List<MessageElement> messages = level.stream().filter(MessageElement.class::isInstance)
                    .map(MessageElement.class::cast).toList();
            if (index >= messages.size()) {
                throw new IllegalArgumentException("no message at index " + index);
            }
            MessageElement m = messages.get(index);
            name.append(name.length() == 0 ? "" : ".").append(m.getName());
            level = m.getNestedTypes();
        }
        return name.toString();
    }

    private static String rejectedImport(String imported) {
        if (imported.startsWith("google/protobuf/")) {
            return "imports " + imported + ", whose well-known types (such as Duration, Struct, Value, Any, Empty,"
                    + " FieldMask) have no column mapping; only google/protobuf/timestamp.proto and"
                    + " google/protobuf/wrappers.proto may be imported, so model the data with your own messages";
        }
        return "imports " + imported + ", but the schema must be self-contained: only"
                + " google/protobuf/timestamp.proto and google/protobuf/wrappers.proto may be imported, so paste the"
                + " imported messages into this text";
    }

    private DescriptorProto message(MessageElement m) {
        if (!m.getGroups().isEmpty()) {
            throw new InvalidSchemaException(field, "message " + m.getName() + " declares the group `"
                    + m.getGroups().get(0).getName() + "`; proto2 groups are not supported, declare a nested message"
                    + " and a field of that type instead");
        }
        DescriptorProto.Builder b = DescriptorProto.newBuilder().setName(m.getName());
        for (TypeElement nested : m.getNestedTypes()) {
            if (nested instanceof MessageElement nm) {
                b.addNestedType(message(nm));
            } else if (nested instanceof EnumElement ne) {
                b.addEnumType(enumType(ne));
            }
        }
        // Wire keeps oneof members apart from the other fields; declaration order (the column order) is restored
        // from their positions in the text.
        List<FieldElement> fields = new ArrayList<>(m.getFields());
        List<OneOfElement> oneOfs = m.getOneOfs();
        for (int i = 0; i < oneOfs.size(); i++) {
            OneOfElement oneOf = oneOfs.get(i);
            if (!oneOf.getGroups().isEmpty()) {
                throw new InvalidSchemaException(field, "oneof " + m.getName() + "." + oneOf.getName()
                        + " declares a group; proto2 groups are not supported, use a nested message instead");
            }
            b.addOneofDecl(OneofDescriptorProto.newBuilder().setName(oneOf.getName()));
            fields.addAll(oneOf.getFields());
        }
        fields.sort(Comparator.comparingInt((FieldElement f) -> f.getLocation().getLine())
                .thenComparingInt(f -> f.getLocation().getColumn()));
        List<String> syntheticOneOfs = new ArrayList<>();
        for (FieldElement f : fields) {
            FieldDescriptorProto.Builder fb = FieldDescriptorProto.newBuilder()
                    .setName(f.getName())
                    .setNumber(f.getTag())
                    .setJsonName(jsonName(f.getName()));
            int oneOfIndex = oneOfIndex(oneOfs, f);
            String type = f.getType();
            if (type.startsWith("map<")) {
                DescriptorProto entry = mapEntry(m, f);
                b.addNestedType(entry);
                fb.setLabel(FieldDescriptorProto.Label.LABEL_REPEATED).setTypeName(entry.getName());
            } else {
                setType(fb, type);
                fb.setLabel(label(f.getLabel()));
                if (oneOfIndex >= 0) {
                    fb.setOneofIndex(oneOfIndex);
                } else if (proto3 && f.getLabel() == Field.Label.OPTIONAL) {
                    // protoc's encoding of proto3 `optional`: a one-field synthetic oneof, declared after real ones.
                    fb.setProto3Optional(true).setOneofIndex(oneOfs.size() + syntheticOneOfs.size());
                    syntheticOneOfs.add(syntheticOneOfName(m, f.getName()));
                }
            }
            b.addField(fb);
        }
        for (String name : syntheticOneOfs) {
            b.addOneofDecl(OneofDescriptorProto.newBuilder().setName(name));
        }
        return b.build();
    }

    private static int oneOfIndex(List<OneOfElement> oneOfs, FieldElement f) {
        for (int i = 0; i < oneOfs.size(); i++) {
            if (oneOfs.get(i).getFields().contains(f)) {
                return i;
            }
        }
        return -1;
    }

    private static String syntheticOneOfName(MessageElement m, String fieldName) {
        String name = "_" + fieldName;
        while (true) {
            String candidate = name;
            boolean clash = m.getOneOfs().stream().anyMatch(o -> o.getName().equals(candidate))
                    || m.getFields().stream().anyMatch(x -> x.getName().equals(candidate));
            if (!clash) {
                return name;
            }
            name = "X" + name;
        }
    }

    private DescriptorProto mapEntry(MessageElement m, FieldElement f) {
        String type = f.getType();
        int comma = type.indexOf(',');
        if (!type.endsWith(">") || comma < 0) {
            throw new InvalidSchemaException(field, "field " + m.getName() + "." + f.getName() + " has the malformed"
                    + " map type `" + type + "`; write map<string, ValueType>");
        }
        String keyType = type.substring(4, comma).trim();
        String valueType = type.substring(comma + 1, type.length() - 1).trim();
        FieldDescriptorProto.Builder key = FieldDescriptorProto.newBuilder().setName("key").setNumber(1)
                .setJsonName("key").setLabel(FieldDescriptorProto.Label.LABEL_OPTIONAL);
        setType(key, keyType);
        FieldDescriptorProto.Builder value = FieldDescriptorProto.newBuilder().setName("value").setNumber(2)
                .setJsonName("value").setLabel(FieldDescriptorProto.Label.LABEL_OPTIONAL);
        setType(value, valueType);
        return DescriptorProto.newBuilder()
                .setName(camelCase(f.getName()) + "Entry")
                .addField(key)
                .addField(value)
                .setOptions(MessageOptions.newBuilder().setMapEntry(true))
                .build();
    }

    /** Scalars get their type; any other name is left for protobuf-java to resolve to a message or an enum. */
    private static void setType(FieldDescriptorProto.Builder b, String type) {
        FieldDescriptorProto.Type scalar = SCALARS.get(type);
        if (scalar != null) {
            b.setType(scalar);
        } else {
            b.setTypeName(type);
        }
    }

    private FieldDescriptorProto.Label label(Field.Label label) {
        if (label == Field.Label.REPEATED) {
            return FieldDescriptorProto.Label.LABEL_REPEATED;
        }
        if (label == Field.Label.REQUIRED) {
            return FieldDescriptorProto.Label.LABEL_REQUIRED;
        }
        return FieldDescriptorProto.Label.LABEL_OPTIONAL;
    }

    private static EnumDescriptorProto enumType(EnumElement e) {
        EnumDescriptorProto.Builder b = EnumDescriptorProto.newBuilder().setName(e.getName());
        for (EnumConstantElement c : e.getConstants()) {
            b.addValue(EnumValueDescriptorProto.newBuilder().setName(c.getName()).setNumber(c.getTag()));
        }
        for (OptionElement o : e.getOptions()) {
            if (o.getName().equals("allow_alias") && "true".equals(String.valueOf(o.getValue()))) {
                b.setOptions(EnumOptions.newBuilder().setAllowAlias(true));
            }
        }
        return b.build();
    }

    private static String camelCase(String name) {
        StringBuilder b = new StringBuilder(name.length());
        boolean upper = true;
        for (char c : name.toCharArray()) {
            if (c == '_') {
                upper = true;
            } else {
                b.append(upper ? Character.toUpperCase(c) : c);
                upper = false;
            }
        }
        return b.toString();
    }

    private static String jsonName(String name) {
        String camel = camelCase(name);
        return camel.isEmpty() ? camel : Character.toLowerCase(camel.charAt(0)) + camel.substring(1);
    }
}
