package io.tributary.schema;

import com.google.protobuf.ByteString;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.EnumValueDescriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Message;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;

/**
 * Protobuf message descriptor to column type and converter (SPEC 4.1): int32/sint32/sfixed32 -> INT;
 * int64/sint64/sfixed64 -> LONG; uint32 -> LONG; uint64 -> DECIMAL(20,0); float, double, bool, string, bytes; enum ->
 * STRING (its name); message -> STRUCT; repeated -> ARRAY; map&lt;string,V&gt; -> MAP; google.protobuf.Timestamp ->
 * TIMESTAMP; wrappers -> nullable scalar. Every singular field is nullable: an unset field (for proto3 scalars, one
 * holding the default) is NULL. Rejects (SPEC 4.2) fixed32/fixed64, maps with non-string keys, recursive messages,
 * well-known types other than Timestamp and the wrappers, and messages without fields (Parquet has no empty struct).
 */
final class ProtoTypeMapper {
    /** Converts one protobuf value, as DynamicMessage returns it, into the column's data model. */
    interface Converter {
        Object convert(Object value);
    }

    record Mapped(Schema type, Converter converter) {}

    static final String TIMESTAMP = "google.protobuf.Timestamp";
    static final Set<String> WRAPPERS = Set.of("google.protobuf.DoubleValue", "google.protobuf.FloatValue",
            "google.protobuf.Int64Value", "google.protobuf.UInt64Value", "google.protobuf.Int32Value",
            "google.protobuf.UInt32Value", "google.protobuf.BoolValue", "google.protobuf.StringValue",
            "google.protobuf.BytesValue");

    private final String field;
    private final RecordNames names;
    private final Set<String> messagesInProgress = new HashSet<>();

    ProtoTypeMapper(String field, RecordNames names) {
        this.field = field;
        this.names = names;
    }

    Mapped map(Descriptor message) {
        return mapMessage(message, "");
    }

    private Mapped mapMessage(Descriptor d, String path) {
        String name = d.getFullName();
        if (name.equals(TIMESTAMP)) {
            FieldDescriptor seconds = d.findFieldByName("seconds");
            FieldDescriptor nanos = d.findFieldByName("nanos");
            return new Mapped(ColumnTypes.timestamp(), v -> {
                Message m = (Message) v;
                return Math.addExact(Math.multiplyExact((Long) m.getField(seconds), 1_000_000L),
                        (Integer) m.getField(nanos) / 1_000L);
            });
        }
        if (WRAPPERS.contains(name)) {
            FieldDescriptor value = d.findFieldByName("value");
            Mapped scalar = mapScalar(value, path);
            return new Mapped(scalar.type, v -> scalar.converter.convert(((Message) v).getField(value)));
        }
        // Only these names are importable, but a pasted copy of another well-known type would decode as a plain
        // struct that means something else (an Any's bytes, a Duration's seconds), so it is refused as a field.
        if (name.startsWith("google.protobuf.") && !path.isEmpty()) {
            throw new InvalidSchemaException(field, "`" + where(path) + "` uses the well-known type " + name
                    + ", which has no column mapping; only google.protobuf.Timestamp and the wrapper types are"
                    + " supported, so model the data with your own message");
        }
        if (!messagesInProgress.add(name)) {
            throw new InvalidSchemaException(field, "message " + name + " is recursive (it contains itself at `"
                    + where(path) + "`); a Delta column cannot nest without end, so break the cycle, e.g. by"
                    + " holding the nested part as bytes");
        }
        if (d.getFields().isEmpty()) {
            throw new InvalidSchemaException(field, "message " + name + " at `" + where(path) + "` has no fields;"
                    + " Delta cannot store an empty struct, so give it at least one field or drop the field");
        }
        names.columns().add(field, d.getFields().size());
        FieldNames columns = new FieldNames(field, path);
        List<Schema.Field> fields = new ArrayList<>();
        List<FieldDescriptor> protoFields = d.getFields();
        Converter[] converters = new Converter[protoFields.size()];
        for (int i = 0; i < protoFields.size(); i++) {
            FieldDescriptor f = protoFields.get(i);
            String column = columns.add(f.getName(), "fields");
            Mapped mapped = mapField(f, path.isEmpty() ? column : path + "." + column);
            fields.add(ColumnTypes.field(column, ColumnTypes.nullable(mapped.type)));
            converters[i] = mapped.converter;
        }
        messagesInProgress.remove(name);
        Schema record = ColumnTypes.record(names.next(path), fields);
        FieldDescriptor[] fieldArray = protoFields.toArray(FieldDescriptor[]::new);
        return new Mapped(record, v -> {
            Message m = (Message) v;
            GenericData.Record r = new GenericData.Record(record);
            for (int i = 0; i < fieldArray.length; i++) {
                FieldDescriptor f = fieldArray[i];
                if (f.isRepeated()) {
                    r.put(i, converters[i].convert(m.getField(f)));
                } else if (m.hasField(f)) {
                    r.put(i, converters[i].convert(m.getField(f)));
                }
            }
            return r;
        });
    }

    /** A field as a whole: repeated fields and maps convert their list, singular fields their value. */
    private Mapped mapField(FieldDescriptor f, String path) {
        if (f.isMapField()) {
            Descriptor entry = f.getMessageType();
            FieldDescriptor key = entry.findFieldByNumber(1);
            FieldDescriptor value = entry.findFieldByNumber(2);
            if (key.getType() != FieldDescriptor.Type.STRING) {
                throw new InvalidSchemaException(field, "map field `" + path + "` has " + typeName(key)
                        + " keys; only map<string, V> is supported (Delta maps here have STRING keys), so use string"
                        + " keys or a repeated message of key and value");
            }
            Mapped values = mapElement(value, path);
            return new Mapped(Schema.createMap(values.type), v -> {
                @SuppressWarnings("unchecked")
                List<Message> entries = (List<Message>) v;
                Map<String, Object> map = new HashMap<>(entries.size() * 2);
                for (Message e : entries) {
                    map.put((String) e.getField(key), values.converter.convert(e.getField(value)));
                }
                return map;
            });
        }
        Mapped element = mapElement(f, path);
        if (!f.isRepeated()) {
            return element;
        }
        return new Mapped(Schema.createArray(element.type), v -> {
            List<?> values = (List<?>) v;
            List<Object> list = new ArrayList<>(values.size());
            for (Object item : values) {
                list.add(element.converter.convert(item));
            }
            return list;
        });
    }

    /** The type of one value of a field (one element for repeated fields). */
    private Mapped mapElement(FieldDescriptor f, String path) {
        if (f.getJavaType() == FieldDescriptor.JavaType.MESSAGE) {
            if (f.getType() == FieldDescriptor.Type.GROUP) {
                throw new InvalidSchemaException(field, "`" + path + "` is a proto2 group, which is not supported;"
                        + " declare a nested message instead");
            }
            return mapMessage(f.getMessageType(), path);
        }
        return mapScalar(f, path);
    }

    private Mapped mapScalar(FieldDescriptor f, String path) {
        return switch (f.getType()) {
            case INT32, SINT32, SFIXED32 -> new Mapped(Schema.create(Schema.Type.INT), v -> v);
            case INT64, SINT64, SFIXED64 -> new Mapped(Schema.create(Schema.Type.LONG), v -> v);
            case UINT32 -> new Mapped(Schema.create(Schema.Type.LONG), v -> Integer.toUnsignedLong((Integer) v));
            case UINT64 -> new Mapped(ColumnTypes.decimal(20, 0), v -> unsigned((Long) v));
            case FLOAT -> new Mapped(Schema.create(Schema.Type.FLOAT), v -> v);
            case DOUBLE -> new Mapped(Schema.create(Schema.Type.DOUBLE), v -> v);
            case BOOL -> new Mapped(Schema.create(Schema.Type.BOOLEAN), v -> v);
            case STRING -> new Mapped(ColumnTypes.string(), v -> v);
            case BYTES -> new Mapped(Schema.create(Schema.Type.BYTES),
                    v -> ByteBuffer.wrap(((ByteString) v).toByteArray()));
            case ENUM -> new Mapped(ColumnTypes.string(), v -> enumName((EnumValueDescriptor) v));
            case FIXED32, FIXED64 -> throw new InvalidSchemaException(field, "`" + path + "` is "
                    + typeName(f) + ", which is not supported (its unsigned fixed-width encoding has no exact column"
                    + " type here); use sfixed32/sfixed64, or uint32/uint64, in the producers' schema");
            default -> throw new InvalidSchemaException(field, "`" + path + "` has the unsupported type "
                    + typeName(f));
        };
    }

    /** An enum number the schema does not know (proto3 keeps them) has no name: its number is kept as text. */
    private static String enumName(EnumValueDescriptor v) {
        return v.getType().findValueByNumber(v.getNumber()) == null ? Integer.toString(v.getNumber()) : v.getName();
    }

    private static BigDecimal unsigned(long v) {
        if (v >= 0) {
            return BigDecimal.valueOf(v);
        }
        return new BigDecimal(new BigInteger(Long.toUnsignedString(v)));
    }

    private static String typeName(FieldDescriptor f) {
        return f.getType().name().toLowerCase(java.util.Locale.ROOT);
    }

    private static String where(String path) {
        return path.isEmpty() ? "(the message itself)" : path;
    }
}
