package io.tributary.schema;

import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.avro.AvroTypeException;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.io.Decoder;
import org.apache.avro.io.ResolvingDecoder;

/**
 * One node of the plan that reads an Avro binary datum straight into the column's data model, following the reader
 * schema through a {@link ResolvingDecoder} (which also resolves an older or newer writer schema against it), or, when
 * the datum was written with the reader schema itself, through the binary decoder alone: the resolving decoder's
 * grammar walk is then pure overhead (a third of an Avro record's decoding time). Without it the plan reads the union
 * indexes the resolving decoder would have read for it and fails on an out-of-range index or enum number with the
 * exceptions the resolving decoder throws, so both ways give the same values and the same failures
 * ({@code AvroBinaryPathTest}). Reading directly avoids building a GenericRecord of the writer schema and copying it.
 */
interface AvroValueReader {
    Object read(Decoder in) throws IOException;

    AvroValueReader NULL = in -> {
        in.readNull();
        return null;
    };
    AvroValueReader BOOLEAN = Decoder::readBoolean;
    AvroValueReader INT = Decoder::readInt;
    AvroValueReader LONG = Decoder::readLong;
    AvroValueReader FLOAT = Decoder::readFloat;
    AvroValueReader DOUBLE = Decoder::readDouble;
    AvroValueReader STRING = Decoder::readString;
    AvroValueReader BYTES = in -> in.readBytes(null);
    AvroValueReader MILLIS_TO_MICROS = in -> Math.multiplyExact(in.readLong(), 1_000L);
    AvroValueReader NANOS_TO_MICROS = in -> Math.floorDiv(in.readLong(), 1_000L);

    static AvroValueReader fixed(int size) {
        return in -> {
            byte[] bytes = new byte[size];
            in.readFixed(bytes);
            return ByteBuffer.wrap(bytes);
        };
    }

    static AvroValueReader decimalBytes(int scale) {
        return in -> {
            ByteBuffer b = in.readBytes(null);
            byte[] bytes = new byte[b.remaining()];
            b.get(bytes);
            return new BigDecimal(new BigInteger(bytes), scale);
        };
    }

    static AvroValueReader decimalFixed(int size, int scale) {
        return in -> {
            byte[] bytes = new byte[size];
            in.readFixed(bytes);
            return new BigDecimal(new BigInteger(bytes), scale);
        };
    }

    static AvroValueReader enumSymbols(List<String> symbols) {
        String[] byIndex = symbols.toArray(String[]::new);
        return in -> {
            int n = in.readEnum();
            if (n < 0 || n >= byIndex.length) {
                // What the resolving decoder throws; the binary decoder alone does not check.
                throw new AvroTypeException("enum index " + n + " out of range");
            }
            return byIndex[n];
        };
    }

    static AvroValueReader array(AvroValueReader items) {
        return in -> {
            List<Object> list = new ArrayList<>();
            for (long n = in.readArrayStart(); n != 0; n = in.arrayNext()) {
                for (long i = 0; i < n; i++) {
                    list.add(items.read(in));
                }
            }
            return list;
        };
    }

    static AvroValueReader map(AvroValueReader values) {
        return in -> {
            Map<String, Object> map = new HashMap<>();
            for (long n = in.readMapStart(); n != 0; n = in.mapNext()) {
                for (long i = 0; i < n; i++) {
                    String key = in.readString();
                    map.put(key, values.read(in));
                }
            }
            return map;
        };
    }

    /** A record: the resolving decoder hands out fields in writer order, each put at its reader position. */
    static AvroValueReader record(Schema column, AvroValueReader[] fields) {
        return in -> {
            GenericData.Record record = new GenericData.Record(column);
            if (in instanceof ResolvingDecoder resolving) {
                for (Schema.Field f : resolving.readFieldOrder()) {
                    record.put(f.pos(), fields[f.pos()].read(in));
                }
            } else {
                for (int i = 0; i < fields.length; i++) {
                    record.put(i, fields[i].read(in));
                }
            }
            return record;
        };
    }

    /** A union of null and one other type. */
    static AvroValueReader nullable(int nullIndex, AvroValueReader value) {
        return in -> {
            int index = in.readIndex();
            if (index == nullIndex) {
                return readNull(in);
            }
            if (index != 1 - nullIndex) {
                throw new ArrayIndexOutOfBoundsException("union index " + index + " of 2 branches");
            }
            return value.read(in);
        };
    }

    /**
     * A union of one branch (["string"], ["null"]), read as that branch once its index is read: the resolving
     * decoder's grammar expects the index too (without it every such datum failed to decode).
     */
    static AvroValueReader singleBranch(AvroValueReader branch) {
        return in -> {
            int index = in.readIndex();
            if (index != 0) {
                throw new ArrayIndexOutOfBoundsException("union index " + index + " of 1 branch");
            }
            return branch.read(in);
        };
    }

    /**
     * A union of several non-null types, as a struct with one field per member: the member that is present holds the
     * value, the others are NULL.
     *
     * @param memberFields for each union branch, its field in the struct, or -1 for the null branch
     */
    static AvroValueReader unionStruct(Schema column, int[] memberFields, AvroValueReader[] branches) {
        return in -> {
            int branch = in.readIndex();
            if (memberFields[branch] < 0) {
                return readNull(in);
            }
            GenericData.Record record = new GenericData.Record(column);
            record.put(memberFields[branch], branches[branch].read(in));
            return record;
        };
    }

    private static Object readNull(Decoder in) throws IOException {
        in.readNull();
        return null;
    }
}
