package io.tributary.schema;

import com.google.protobuf.ByteString;
import com.google.protobuf.CodedInputStream;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.EnumDescriptor;
import com.google.protobuf.Descriptors.EnumValueDescriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Descriptors.OneofDescriptor;
import com.google.protobuf.InvalidProtocolBufferException;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.IndexedRecord;

/**
 * Reads Protobuf's wire format by field number with {@link CodedInputStream} straight into the column's data model,
 * without a DynamicMessage in between (its field set, boxing and reflective getters were most of a Protobuf record's
 * decoding time). It gives exactly what DynamicMessage plus {@link ProtoTypeMapper}'s converters give, which
 * {@code ProtoWireReaderTest} checks on random and corrupted messages: a field repeated on the wire is last-wins
 * (messages merge), a oneof member clears the others, a proto3 field without presence holding its default is unset,
 * packed and unpacked repeated fields both read, a known field of the wrong wire type is skipped as unknown, a closed
 * (proto2) enum's unknown number is dropped, strings are UTF-8 checked where protobuf-java checks them, and the three
 * failures keep their order: bytes that do not parse, then missing required fields, then a Timestamp out of range.
 *
 * <p>A singular message may be merged by a later occurrence anywhere in the bytes, so Timestamps and wrappers are kept
 * as their parts until the whole message is read ({@link #finish}); repeated elements and map entries are never
 * merged and are finished as soon as they end.
 */
final class ProtoWireReader {
    /** protobuf-java's default recursion limit, which DynamicMessage parses under. */
    private static final int MAX_DEPTH = 100;

    private static final int PLAIN = 0;
    private static final int TIMESTAMP = 1;
    private static final int WRAPPER = 2;

    private static final int INT32 = 0;
    private static final int SINT32 = 1;
    private static final int SFIXED32 = 2;
    private static final int INT64 = 3;
    private static final int SINT64 = 4;
    private static final int SFIXED64 = 5;
    private static final int UINT32 = 6;
    private static final int UINT64 = 7;
    private static final int FLOAT = 8;
    private static final int DOUBLE = 9;
    private static final int BOOL = 10;
    private static final int STRING = 11;
    private static final int BYTES = 12;
    private static final int ENUM = 13;
    private static final int MESSAGE = 14;
    private static final int MAP = 15;

    /** The compiled plan of one message type at one place of the column (record schemas differ per place). */
    static final class Plan {
        final int kind;
        final Schema record;
        final Field[] fields;
        private final Field[] byNumber;
        private final Map<Integer, Field> sparse = new HashMap<>();
        final int[] repeated;
        final int[] required;
        /** Whether {@link #finish} has anything to do below a message of this plan. */
        final boolean needsFinish;

        Plan(Descriptor d, Schema column) {
            String name = d.getFullName();
            kind = name.equals(ProtoTypeMapper.TIMESTAMP) ? TIMESTAMP
                    : ProtoTypeMapper.WRAPPERS.contains(name) ? WRAPPER : PLAIN;
            record = kind == PLAIN ? column : null;
            List<FieldDescriptor> fds = d.getFields();
            fields = new Field[fds.size()];
            int maxNumber = 0;
            List<Integer> rep = new ArrayList<>();
            List<Integer> req = new ArrayList<>();
            boolean finish = kind != PLAIN;
            for (int i = 0; i < fds.size(); i++) {
                FieldDescriptor f = fds.get(i);
                Schema fieldColumn = switch (kind) {
                    case PLAIN -> AvroNullables.nonNull(column.getFields().get(i).schema());
                    case WRAPPER -> column;
                    default -> null;
                };
                fields[i] = new Field(f, i, fieldColumn);
                if (f.getNumber() <= 1024) {
                    maxNumber = Math.max(maxNumber, f.getNumber());
                }
                if (f.isRepeated()) {
                    rep.add(i);
                } else if (fields[i].message != null && fields[i].message.needsFinish) {
                    finish = true;
                }
                if (f.isRequired()) {
                    req.add(i);
                    finish = true;
                }
            }
            byNumber = new Field[maxNumber + 1];
            for (Field f : fields) {
                if (f.number <= 1024) {
                    byNumber[f.number] = f;
                } else {
                    sparse.put(f.number, f);
                }
            }
            for (Field f : fields) {
                OneofDescriptor oneof = f.descriptor.getRealContainingOneof();
                if (oneof != null) {
                    f.siblings = oneof.getFields().stream().filter(o -> o != f.descriptor)
                            .mapToInt(FieldDescriptor::getIndex).toArray();
                }
            }
            repeated = rep.stream().mapToInt(Integer::intValue).toArray();
            required = req.stream().mapToInt(Integer::intValue).toArray();
            needsFinish = finish;
        }

        Field field(int number) {
            return number < byNumber.length ? byNumber[number] : sparse.get(number);
        }

        IndexedRecord newTarget() {
            return kind == PLAIN ? new GenericData.Record(record) : new Parts(fields.length);
        }
    }

    /** One field of a plan. */
    static final class Field {
        final FieldDescriptor descriptor;
        final int pos;
        final int number;
        final int kind;
        final int wireType;
        final boolean repeated;
        final boolean presence;
        final boolean packable;
        final boolean utf8Strict;
        final boolean closedEnum;
        final EnumDescriptor enumType;
        final int enumDefault;
        /** The message's plan for MESSAGE, the value's for a MAP of messages. */
        final Plan message;
        /** For MAP: the entry's key and value fields. */
        final Field mapKey;
        final Field mapValue;
        int[] siblings;

        Field(FieldDescriptor f, int pos, Schema column) {
            this.descriptor = f;
            this.pos = pos;
            this.number = f.getNumber();
            this.repeated = f.isRepeated();
            this.presence = f.hasPresence();
            this.packable = f.isPackable();
            this.utf8Strict = f.getType() == FieldDescriptor.Type.STRING && f.needsUtf8Check();
            if (f.isMapField()) {
                kind = MAP;
                Descriptor entry = f.getMessageType();
                mapKey = new Field(entry.findFieldByNumber(1), 0, null);
                mapValue = new Field(entry.findFieldByNumber(2), 1, column.getValueType());
                message = null;
            } else {
                mapKey = null;
                mapValue = null;
                kind = kindOf(f.getType());
                Schema element = f.isRepeated() && column != null ? column.getElementType() : column;
                message = kind == MESSAGE ? new Plan(f.getMessageType(), element) : null;
            }
            this.wireType = switch (kind) {
                case SFIXED32, FLOAT -> 5;
                case SFIXED64, DOUBLE -> 1;
                case STRING, BYTES, MESSAGE, MAP -> 2;
                default -> 0;
            };
            if (kind == ENUM) {
                enumType = f.getEnumType();
                closedEnum = f.legacyEnumFieldTreatedAsClosed();
                // A repeated field's default is an empty list; it has no default number to unset.
                enumDefault = f.isRepeated() ? Integer.MIN_VALUE : ((EnumValueDescriptor) f.getDefaultValue())
                        .getNumber();
            } else {
                enumType = null;
                closedEnum = false;
                enumDefault = 0;
            }
        }

        private static int kindOf(FieldDescriptor.Type t) {
            return switch (t) {
                case INT32 -> INT32;
                case SINT32 -> SINT32;
                case SFIXED32 -> SFIXED32;
                case INT64 -> INT64;
                case SINT64 -> SINT64;
                case SFIXED64 -> SFIXED64;
                case UINT32 -> UINT32;
                case UINT64 -> UINT64;
                case FLOAT -> FLOAT;
                case DOUBLE -> DOUBLE;
                case BOOL -> BOOL;
                case STRING -> STRING;
                case BYTES -> BYTES;
                case ENUM -> ENUM;
                case MESSAGE -> MESSAGE;
                // The type mapper refuses groups and fixed32/fixed64 before a plan is built.
                default -> throw new IllegalArgumentException("no wire reader for " + t);
            };
        }
    }

    /** A Timestamp's or wrapper's fields until {@link #finish} turns them into the column's value. */
    private static final class Parts implements IndexedRecord {
        final Object[] values;

        Parts(int n) {
            values = new Object[n];
        }

        @Override
        public void put(int i, Object v) {
            values[i] = v;
        }

        @Override
        public Object get(int i) {
            return values[i];
        }

        @Override
        public Schema getSchema() {
            return null;
        }
    }

    private final Plan root;
    private final String messageName;
    private boolean incomplete;
    private boolean outOfRange;

    ProtoWireReader(Plan root, String messageName) {
        this.root = root;
        this.messageName = messageName;
    }

    Object decode(byte[] bytes, int offset, int length) throws DecodeException {
        incomplete = false;
        outOfRange = false;
        Object value;
        try {
            CodedInputStream in = CodedInputStream.newInstance(bytes, offset, length);
            IndexedRecord target = root.newTarget();
            readBody(in, root, target, 0);
            value = end(root, target);
        } catch (IOException e) {
            throw new DecodeException("not a Protobuf " + messageName + " message");
        }
        if (incomplete) {
            throw new DecodeException("incomplete Protobuf " + messageName + " message: "
                    + "UninitializedMessageException");
        }
        if (outOfRange) {
            throw new DecodeException("a Protobuf Timestamp outside the column's range");
        }
        return value;
    }

    private void readBody(CodedInputStream in, Plan plan, IndexedRecord target, int depth) throws IOException {
        while (true) {
            int tag = in.readTag();
            if (tag == 0) {
                return;
            }
            Field f = plan.field(tag >>> 3);
            int wireType = tag & 7;
            if (f != null && wireType == f.wireType) {
                readOne(in, f, target, depth);
            } else if (f != null && f.packable && wireType == 2) {
                int old = in.pushLimit(in.readRawVarint32());
                while (in.getBytesUntilLimit() > 0) {
                    readOne(in, f, target, depth);
                }
                in.popLimit(old);
            } else if (!in.skipField(tag)) {
                throw new InvalidProtocolBufferException("an end-group tag outside a group");
            }
        }
    }

    private void readOne(CodedInputStream in, Field f, IndexedRecord target, int depth) throws IOException {
        switch (f.kind) {
            case MESSAGE -> {
                if (f.repeated) {
                    IndexedRecord element = f.message.newTarget();
                    readNested(in, f.message, element, depth);
                    list(target, f).add(end(f.message, element));
                } else {
                    Object current = target.get(f.pos);
                    IndexedRecord message = current == null ? f.message.newTarget() : (IndexedRecord) current;
                    readNested(in, f.message, message, depth);
                    fillRepeated(f.message, message);
                    set(f, target, message);
                }
            }
            case MAP -> readEntry(in, f, target, depth);
            case ENUM -> {
                int n = in.readEnum();
                EnumValueDescriptor v = f.enumType.findValueByNumber(n);
                if (v == null && f.closedEnum) {
                    return;
                }
                String name = v == null ? Integer.toString(n) : v.getName();
                scalar(f, target, name, n == f.enumDefault);
            }
            case INT32 -> scalarInt(f, target, in.readInt32());
            case SINT32 -> scalarInt(f, target, in.readSInt32());
            case SFIXED32 -> scalarInt(f, target, in.readSFixed32());
            case INT64 -> scalarLong(f, target, in.readInt64());
            case SINT64 -> scalarLong(f, target, in.readSInt64());
            case SFIXED64 -> scalarLong(f, target, in.readSFixed64());
            case UINT32 -> {
                int v = in.readUInt32();
                scalar(f, target, Integer.toUnsignedLong(v), v == 0);
            }
            case UINT64 -> {
                long v = in.readUInt64();
                scalar(f, target, unsigned(v), v == 0);
            }
            case FLOAT -> {
                float v = in.readFloat();
                scalar(f, target, v, Float.floatToIntBits(v) == 0);
            }
            case DOUBLE -> {
                double v = in.readDouble();
                scalar(f, target, v, Double.doubleToLongBits(v) == 0L);
            }
            case BOOL -> {
                boolean v = in.readBool();
                scalar(f, target, v, !v);
            }
            case STRING -> {
                String v = f.utf8Strict ? in.readStringRequireUtf8() : in.readString();
                scalar(f, target, v, v.isEmpty());
            }
            case BYTES -> {
                byte[] v = in.readByteArray();
                scalar(f, target, ByteBuffer.wrap(v), v.length == 0);
            }
            default -> throw new IllegalStateException("field kind " + f.kind);
        }
    }

    private void scalarInt(Field f, IndexedRecord target, int v) {
        scalar(f, target, v, v == 0);
    }

    private void scalarLong(Field f, IndexedRecord target, long v) {
        scalar(f, target, v, v == 0L);
    }

    /** A scalar value: appended to a repeated field, else set (a field without presence holding its default is unset). */
    private static void scalar(Field f, IndexedRecord target, Object value, boolean isDefault) {
        if (f.repeated) {
            list(target, f).add(value);
        } else if (!f.presence && isDefault) {
            target.put(f.pos, null);
        } else {
            set(f, target, value);
        }
    }

    private static void set(Field f, IndexedRecord target, Object value) {
        target.put(f.pos, value);
        if (f.siblings != null) {
            for (int s : f.siblings) {
                target.put(s, null);
            }
        }
    }

    @SuppressWarnings("unchecked")
    private static List<Object> list(IndexedRecord target, Field f) {
        Object current = target.get(f.pos);
        if (current == null) {
            List<Object> list = new ArrayList<>();
            target.put(f.pos, list);
            return list;
        }
        return (List<Object>) current;
    }

    private void readNested(CodedInputStream in, Plan plan, IndexedRecord target, int depth) throws IOException {
        if (depth >= MAX_DEPTH) {
            throw new InvalidProtocolBufferException("message nested too deeply");
        }
        int length = in.readRawVarint32();
        int old = in.pushLimit(length);
        readBody(in, plan, target, depth + 1);
        in.popLimit(old);
    }

    /** One map entry: a message of key (1) and value (2); a missing key or value is its type's default. */
    @SuppressWarnings("unchecked")
    private void readEntry(CodedInputStream in, Field f, IndexedRecord target, int depth) throws IOException {
        if (depth >= MAX_DEPTH) {
            throw new InvalidProtocolBufferException("message nested too deeply");
        }
        int old = in.pushLimit(in.readRawVarint32());
        Parts entry = new Parts(2);
        Field key = f.mapKey;
        Field value = f.mapValue;
        while (true) {
            int tag = in.readTag();
            if (tag == 0) {
                break;
            }
            int number = tag >>> 3;
            int wireType = tag & 7;
            if (number == 1 && wireType == 2) {
                entry.values[0] = key.utf8Strict ? in.readStringRequireUtf8() : in.readString();
            } else if (number == 2 && wireType == value.wireType) {
                readEntryValue(in, value, entry, depth + 1);
            } else if (number == 2 && value.packable && wireType == 2) {
                // Not repeated, so never packed: protobuf-java skips it as an unknown field.
                in.skipField(tag);
            } else if (!in.skipField(tag)) {
                throw new InvalidProtocolBufferException("an end-group tag outside a group");
            }
        }
        in.popLimit(old);
        Object k = entry.values[0] == null ? "" : entry.values[0];
        Object v;
        if (value.kind == MESSAGE) {
            // A missing value is the type's default instance, which DynamicMessage sets in the entry and so checks
            // for required fields like any other.
            v = end(value.message, entry.values[1] == null ? value.message.newTarget()
                    : (IndexedRecord) entry.values[1]);
        } else {
            v = entry.values[1] == null ? defaultValue(value) : entry.values[1];
        }
        Map<String, Object> map = (Map<String, Object>) target.get(f.pos);
        if (map == null) {
            map = new HashMap<>();
            target.put(f.pos, map);
        }
        map.put((String) k, v);
    }

    /** The entry's value field holds whatever was last written, defaults included (it is converted, never unset). */
    private void readEntryValue(CodedInputStream in, Field value, Parts entry, int depth) throws IOException {
        if (value.kind == MESSAGE) {
            Object current = entry.values[1];
            IndexedRecord message = current == null ? value.message.newTarget() : (IndexedRecord) current;
            readNested(in, value.message, message, depth);
            fillRepeated(value.message, message);
            entry.values[1] = message;
            return;
        }
        Parts holder = new Parts(2);
        readOne(in, value, holder, depth);
        if (holder.values[1] != null) {
            entry.values[1] = holder.values[1];
        } else if (value.kind != ENUM || !value.closedEnum) {
            // A default: readOne unset it (no presence); the map holds it all the same.
            entry.values[1] = null;
        }
    }

    /** A message read to its end: repeated fields that never appeared are empty, and it is finished. */
    private Object end(Plan plan, IndexedRecord message) {
        fillRepeated(plan, message);
        return plan.needsFinish ? finish(plan, message) : message;
    }

    private static void fillRepeated(Plan plan, IndexedRecord message) {
        for (int i : plan.repeated) {
            if (message.get(i) == null) {
                message.put(i, plan.fields[i].kind == MAP ? new HashMap<>() : new ArrayList<>());
            }
        }
    }

    /** Turns Timestamps and wrappers into the column's values and checks required fields, below singular fields. */
    private Object finish(Plan plan, IndexedRecord message) {
        if (plan.kind == TIMESTAMP) {
            long seconds = message.get(0) == null ? 0L : (Long) message.get(0);
            int nanos = message.get(1) == null ? 0 : (Integer) message.get(1);
            try {
                return Math.addExact(Math.multiplyExact(seconds, 1_000_000L), nanos / 1_000L);
            } catch (ArithmeticException e) {
                outOfRange = true;
                return null;
            }
        }
        if (plan.kind == WRAPPER) {
            return message.get(0) == null ? defaultValue(plan.fields[0]) : message.get(0);
        }
        for (int i : plan.required) {
            if (message.get(i) == null) {
                incomplete = true;
            }
        }
        for (Field f : plan.fields) {
            if (!f.repeated && f.message != null && f.message.needsFinish) {
                Object v = message.get(f.pos);
                if (v instanceof IndexedRecord nested) {
                    message.put(f.pos, finish(f.message, nested));
                }
            }
        }
        return message;
    }

    /** What DynamicMessage's getField gives for an unset field, converted into the column's model. */
    private Object defaultValue(Field f) {
        Object d = f.descriptor.getDefaultValue();
        return switch (f.kind) {
            case UINT32 -> Integer.toUnsignedLong((Integer) d);
            case UINT64 -> unsigned((Long) d);
            case BYTES -> ByteBuffer.wrap(((ByteString) d).toByteArray());
            case ENUM -> ((EnumValueDescriptor) d).getName();
            default -> d;
        };
    }

    private static BigDecimal unsigned(long v) {
        if (v >= 0) {
            return BigDecimal.valueOf(v);
        }
        return new BigDecimal(new BigInteger(Long.toUnsignedString(v)));
    }
}
