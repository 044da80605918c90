package io.tributary.schema;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.EnumValueDescriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.apache.avro.generic.IndexedRecord;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The wire reader against the DynamicMessage path it replaces, on messages no encoder would write but a producer or a
 * corrupted record can: fields in any order and repeated (last wins, messages merge), packed and unpacked, defaults
 * written out, -0.0 and NaN, oneof members overwriting each other, map entries without key or value, unknown fields
 * and known ones of the wrong wire type, unknown enum numbers (open and closed), invalid UTF-8, missing required
 * fields, Timestamps out of range, and truncated or garbled bytes. Both must give the same value, or fail with the same
 * message.
 */
class ProtoWireReaderTest {

    static final String PROTO3 = """
        syntax = "proto3";
        package t;
        import "google/protobuf/timestamp.proto";
        import "google/protobuf/wrappers.proto";

        message M {
          int32 i32 = 1; sint32 s32 = 2; sfixed32 sf32 = 3; int64 i64 = 4; sint64 s64 = 5; sfixed64 sf64 = 6;
          uint32 u32 = 7; uint64 u64 = 8; float f = 9; double d = 10; bool b = 11; string s = 12; bytes raw = 13;
          Color color = 14;
          Sub sub = 15;
          repeated int32 ri = 16; repeated string rs = 17; repeated Sub rsub = 18; repeated Color rcolor = 19;
          repeated double rd = 20; repeated uint64 ru = 34; repeated bool rb = 35; repeated sfixed32 rsf = 36;
          map<string, int64> counts = 21; map<string, Sub> subs = 22; map<string, Color> colors = 23;
          google.protobuf.Timestamp at = 24;
          google.protobuf.Int64Value wi = 25; google.protobuf.StringValue ws = 26; google.protobuf.UInt64Value wu = 27;
          oneof choice { string c_text = 28; Sub c_sub = 29; int32 c_num = 30; }
          optional int32 opt = 31;
          repeated google.protobuf.Timestamp ats = 32;
          map<string, google.protobuf.Timestamp> atmap = 33;
          map<string, bytes> blobs = 37;
          enum Color { RED = 0; GREEN = 1; BLUE = 2; }
        }
        message Sub { string name = 1; int32 n = 2; repeated int64 xs = 3; Leaf leaf = 4;
          google.protobuf.Timestamp t = 5; google.protobuf.BoolValue wb = 6; }
        message Leaf { bool flag = 1; string tag = 2; float w = 3; }
        """;

    static final String PROTO2 = """
        syntax = "proto2";
        package p;

        message M {
          required string id = 1;
          optional int32 n = 2 [default = 5];
          optional Color color = 3;
          repeated Color colors = 4;
          repeated int32 packed = 5 [packed = true];
          optional string s = 6;
          optional Sub sub = 7;
          repeated Sub subs = 8;
          map<string, string> tags = 9;
          optional double d = 10;
          oneof o { int32 a = 11; string b = 12; }
          map<string, Sub> bysub = 13;
          optional uint32 u = 14;
          enum Color { RED = 1; GREEN = 2; }
        }
        message Sub { required int32 k = 1; optional string v = 2; optional Color c = 3; }
        enum Color { ONE = 1; TWO = 2; }
        """;

    @ParameterizedTest
    @ValueSource(strings = {"proto3", "proto2"})
    void givesWhatDynamicMessageGives(String syntax) throws Exception {
        String text = syntax.equals("proto3") ? PROTO3 : PROTO2;
        String name = syntax.equals("proto3") ? "t.M" : "p.M";
        ProtoSchemaCompiler.Compiled compiled = ProtoSchemaCompiler.compile(text, name, "f", new RecordNames("r"));
        Decoder wire = compiled.newDecoder();
        Decoder dynamic;
        System.setProperty("tributary.ingest.direct-write", "false");
        try {
            dynamic = compiled.newDecoder();
        } finally {
            System.clearProperty("tributary.ingest.direct-write");
        }
        Random random = new Random(17);
        Map<String, Integer> outcomes = new TreeMap<>();
        for (int i = 0; i < 6000; i++) {
            byte[] bytes = message(compiled.message(), random, 0);
            if (random.nextInt(10) == 0) {
                bytes = corrupt(bytes, random);
            }
            Object expected;
            String expectedError = null;
            try {
                expected = canon(dynamic.decode(bytes));
            } catch (DecodeException e) {
                expected = null;
                expectedError = e.getMessage();
            }
            Object actual;
            String actualError = null;
            try {
                actual = canon(wire.decode(bytes));
            } catch (DecodeException e) {
                actual = null;
                actualError = e.getMessage();
            }
            String bytesHex = HexFormat.of().formatHex(bytes);
            assertThat(actualError).as("error for %s", bytesHex).isEqualTo(expectedError);
            assertThat(actual).as("value of %s", bytesHex).isEqualTo(expected);
            outcomes.merge(expectedError == null ? "decoded" : expectedError.replaceAll(":.*", ""), 1, Integer::sum);
        }
        // Not vacuous: most decode, and each kind of failure the schema allows happens.
        assertThat(outcomes.get("decoded")).isGreaterThan(3000);
        assertThat(outcomes).containsKey("not a Protobuf " + name + " message");
        if (syntax.equals("proto3")) {
            assertThat(outcomes).containsKey("a Protobuf Timestamp outside the column's range");
        } else {
            assertThat(outcomes).containsKey("incomplete Protobuf " + name + " message");
        }
    }

    // --- a generator of wire bytes from the descriptor, written field by field with CodedOutputStream ---

    private static byte[] message(Descriptor d, Random r, int depth) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        CodedOutputStream out = CodedOutputStream.newInstance(bytes);
        List<FieldDescriptor> fields = d.getFields();
        boolean timestamp = d.getFullName().equals("google.protobuf.Timestamp");
        int n = depth > 2 ? r.nextInt(3) : r.nextInt(fields.size() + 3);
        // proto2's required fields are mostly there, so that most messages decode.
        for (FieldDescriptor f : fields) {
            if (f.isRequired() && r.nextInt(12) != 0) {
                write(out, f, r, depth);
            }
        }
        for (int i = 0; i < n; i++) {
            int pick = r.nextInt(20);
            if (pick == 0) {
                unknown(out, r);
            } else if (pick == 1 && !timestamp) {
                wrongWireType(out, fields.get(r.nextInt(fields.size())), r);
            } else {
                write(out, fields.get(r.nextInt(fields.size())), r, depth);
            }
        }
        out.flush();
        return bytes.toByteArray();
    }

    private static void write(CodedOutputStream out, FieldDescriptor f, Random r, int depth) throws IOException {
        int number = f.getNumber();
        if (f.isMapField()) {
            Descriptor entry = f.getMessageType();
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            CodedOutputStream e = CodedOutputStream.newInstance(bytes);
            int shape = r.nextInt(8);
            if (shape != 1) {
                e.writeString(1, List.of("a", "b", "c", "").get(r.nextInt(4)));
            }
            if (shape != 2) {
                value(e, entry.findFieldByNumber(2), r, depth + 1);
            }
            if (shape == 3) {
                value(e, entry.findFieldByNumber(2), r, depth + 1);
            }
            if (shape == 4) {
                unknown(e, r);
            }
            e.flush();
            out.writeByteArray(number, bytes.toByteArray());
            return;
        }
        if (f.isPackable() && r.nextBoolean()) {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            CodedOutputStream p = CodedOutputStream.newInstance(bytes);
            int count = r.nextInt(4);
            for (int i = 0; i < count; i++) {
                rawScalar(p, f, r);
            }
            p.flush();
            out.writeByteArray(number, bytes.toByteArray());
            return;
        }
        value(out, f, r, depth);
    }

    private static void value(CodedOutputStream out, FieldDescriptor f, Random r, int depth) throws IOException {
        if (f.getJavaType() == FieldDescriptor.JavaType.MESSAGE) {
            Descriptor m = f.getMessageType();
            if (m.getFullName().equals("google.protobuf.Timestamp")) {
                ByteArrayOutputStream bytes = new ByteArrayOutputStream();
                CodedOutputStream t = CodedOutputStream.newInstance(bytes);
                if (r.nextInt(4) != 0) {
                    t.writeInt64(1, r.nextInt(40) == 0 ? Long.MAX_VALUE / 1000 : r.nextInt(4) == 0 ? 0
                            : 1_700_000_000L + r.nextInt(1_000_000) - 500_000L);
                }
                if (r.nextInt(3) != 0) {
                    t.writeInt32(2, r.nextInt(4) == 0 ? 0 : r.nextInt(1_000_000_000) - (r.nextInt(9) == 0 ? 999 : 0));
                }
                t.flush();
                out.writeByteArray(f.getNumber(), bytes.toByteArray());
                return;
            }
            out.writeByteArray(f.getNumber(), message(m, r, depth + 1));
            return;
        }
        out.writeTag(f.getNumber(), wireType(f));
        rawScalar(out, f, r);
    }

    private static int wireType(FieldDescriptor f) {
        return switch (f.getType()) {
            case SFIXED32, FLOAT -> 5;
            case SFIXED64, DOUBLE -> 1;
            case STRING, BYTES, MESSAGE -> 2;
            default -> 0;
        };
    }

    /** A value without its tag: defaults, extremes and odd values are frequent. */
    private static void rawScalar(CodedOutputStream out, FieldDescriptor f, Random r) throws IOException {
        boolean zero = r.nextInt(4) == 0;
        switch (f.getType()) {
            case INT32 -> out.writeInt32NoTag(zero ? 0 : r.nextInt(7) == 0 ? Integer.MIN_VALUE : r.nextInt(2000) - 1000);
            case SINT32 -> out.writeSInt32NoTag(zero ? 0 : r.nextInt());
            case SFIXED32 -> out.writeSFixed32NoTag(zero ? 0 : r.nextInt());
            case INT64 -> out.writeInt64NoTag(zero ? 0 : r.nextLong());
            case SINT64 -> out.writeSInt64NoTag(zero ? 0 : r.nextLong());
            case SFIXED64 -> out.writeSFixed64NoTag(zero ? 0 : r.nextLong());
            case UINT32 -> out.writeUInt32NoTag(zero ? 0 : r.nextInt());
            case UINT64 -> out.writeUInt64NoTag(zero ? 0 : r.nextBoolean() ? -1L : r.nextLong());
            case FLOAT -> out.writeFloatNoTag(zero ? 0f : List.of(-0f, Float.NaN, 1.5f, -2e30f).get(r.nextInt(4)));
            case DOUBLE -> out.writeDoubleNoTag(zero ? 0d : List.of(-0d, Double.NaN, 2.25, 1e308).get(r.nextInt(4)));
            case BOOL -> out.writeBoolNoTag(!zero && r.nextBoolean());
            case STRING -> {
                if (r.nextInt(15) == 0) {
                    out.writeByteArrayNoTag(new byte[] {'o', (byte) 0xC3, 'k', (byte) 0xFF});
                } else {
                    out.writeStringNoTag(zero ? "" : List.of("x", "héllo", "𝄞", "b").get(r.nextInt(4)));
                }
            }
            case BYTES -> out.writeByteArrayNoTag(zero ? new byte[0] : new byte[] {(byte) r.nextInt(), 0, -1});
            case ENUM -> {
                List<EnumValueDescriptor> values = f.getEnumType().getValues();
                out.writeEnumNoTag(r.nextInt(5) == 0 ? 7 + r.nextInt(3) : values.get(r.nextInt(values.size()))
                        .getNumber());
            }
            default -> throw new IllegalArgumentException(f.getType().name());
        }
    }

    /** A field the schema does not have, of any wire type, groups included. */
    private static void unknown(CodedOutputStream out, Random r) throws IOException {
        int number = 90 + r.nextInt(5);
        switch (r.nextInt(5)) {
            case 0 -> out.writeInt64(number, r.nextLong());
            case 1 -> out.writeFixed64(number, r.nextLong());
            case 2 -> out.writeString(number, "unknown");
            case 3 -> out.writeFixed32(number, r.nextInt());
            default -> {
                out.writeTag(number, 3);
                out.writeInt32(1, 5);
                out.writeTag(number, 4);
            }
        }
    }

    /** A known field number with a wire type that is not its own. */
    private static void wrongWireType(CodedOutputStream out, FieldDescriptor f, Random r) throws IOException {
        int own = wireType(f);
        int other = List.of(0, 1, 2, 5).get(r.nextInt(4));
        if (other == own) {
            other = own == 0 ? 5 : 0;
        }
        switch (other) {
            case 0 -> out.writeInt64(f.getNumber(), r.nextInt(100));
            case 1 -> out.writeFixed64(f.getNumber(), r.nextLong());
            case 2 -> out.writeByteArray(f.getNumber(), new byte[] {8, 1});
            default -> out.writeFixed32(f.getNumber(), r.nextInt());
        }
    }

    private static byte[] corrupt(byte[] bytes, Random r) {
        if (bytes.length == 0) {
            return new byte[] {(byte) 0xff};
        }
        byte[] copy = bytes.clone();
        switch (r.nextInt(4)) {
            case 0 -> {
                return java.util.Arrays.copyOf(bytes, r.nextInt(bytes.length));
            }
            case 1 -> copy[r.nextInt(copy.length)] ^= (byte) (1 << r.nextInt(8));
            case 2 -> copy[r.nextInt(copy.length)] = (byte) r.nextInt();
            default -> {
                byte[] longer = java.util.Arrays.copyOf(bytes, bytes.length + 2);
                longer[bytes.length] = (byte) (r.nextInt(8) | (r.nextInt(20) << 3));
                longer[bytes.length + 1] = (byte) 0x80;
                return longer;
            }
        }
        return copy;
    }

    /** A value in a form whose equals compares what a writer would write: types, bits of floats, bytes. */
    static Object canon(Object v) {
        if (v == null) {
            return null;
        }
        if (v instanceof IndexedRecord rec) {
            Map<String, Object> m = new LinkedHashMap<>();
            for (org.apache.avro.Schema.Field f : rec.getSchema().getFields()) {
                m.put(f.name(), canon(rec.get(f.pos())));
            }
            return m;
        }
        if (v instanceof Map<?, ?> map) {
            Map<String, Object> m = new TreeMap<>();
            map.forEach((k, value) -> m.put("k:" + k, canon(value)));
            return "map" + m;
        }
        if (v instanceof Collection<?> c) {
            List<Object> l = new ArrayList<>();
            c.forEach(e -> l.add(canon(e)));
            return "list" + l;
        }
        if (v instanceof ByteBuffer b) {
            byte[] a = new byte[b.remaining()];
            b.duplicate().get(a);
            return "bytes:" + HexFormat.of().formatHex(a);
        }
        if (v instanceof Float f) {
            return "float:" + Integer.toHexString(Float.floatToRawIntBits(f));
        }
        if (v instanceof Double d) {
            return "double:" + Long.toHexString(Double.doubleToRawLongBits(d));
        }
        if (v instanceof BigDecimal d) {
            return "decimal:" + d.toPlainString() + "/" + d.scale();
        }
        return v.getClass().getSimpleName() + ":" + v;
    }
}
