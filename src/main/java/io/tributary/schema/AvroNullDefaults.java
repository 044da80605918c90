package io.tributary.schema;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import org.apache.avro.JsonProperties;
import org.apache.avro.Schema;

/**
 * A reader schema whose nullable fields default to null. Avro's schema resolution fails a whole message when the reader
 * has a field the writer lacks and no default; the column of a registry stream keeps fields that later versions remove
 * (the table never drops a column), so such messages must still resolve, with NULL there.
 */
final class AvroNullDefaults {
    private AvroNullDefaults() {}

    static Schema of(Schema reader) {
        return copy(reader, new IdentityHashMap<>());
    }

    private static Schema copy(Schema s, Map<Schema, Schema> done) {
        switch (s.getType()) {
            case RECORD -> {
                Schema existing = done.get(s);
                if (existing != null) {
                    return existing;
                }
                Schema out = Schema.createRecord(s.getName(), s.getDoc(), s.getNamespace(), s.isError());
                done.put(s, out);
                s.getAliases().forEach(out::addAlias);
                List<Schema.Field> fields = new ArrayList<>();
                for (Schema.Field f : s.getFields()) {
                    Schema type = copy(f.schema(), done);
                    Object defaultValue = f.hasDefaultValue() ? f.defaultVal()
                            : nullFirst(type) ? JsonProperties.NULL_VALUE : null;
                    Schema.Field copy = new Schema.Field(f.name(), type, f.doc(), defaultValue, f.order());
                    f.aliases().forEach(copy::addAlias);
                    f.getObjectProps().forEach(copy::addProp);
                    fields.add(copy);
                }
                out.setFields(fields);
                s.getObjectProps().forEach(out::addProp);
                return out;
            }
            case UNION -> {
                List<Schema> types = new ArrayList<>();
                s.getTypes().forEach(t -> types.add(copy(t, done)));
                return Schema.createUnion(types);
            }
            case ARRAY -> {
                Schema out = Schema.createArray(copy(s.getElementType(), done));
                s.getObjectProps().forEach(out::addProp);
                return out;
            }
            case MAP -> {
                Schema out = Schema.createMap(copy(s.getValueType(), done));
                s.getObjectProps().forEach(out::addProp);
                return out;
            }
            default -> {
                return s;
            }
        }
    }

    /** Avro only accepts a null default when null is the union's first branch. */
    private static boolean nullFirst(Schema s) {
        return AvroNullables.isNullFirst(s);
    }
}
