package io.tributary.schema;

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
import org.apache.avro.io.ResolvingDecoder;

/**
 * One node of the plan that reads an Avro binary datum straight into the column's data model, following the reader
 * schema through a {@link ResolvingDecoder} (which also resolves an older or newer writer schema against it). Reading
 * directly avoids building a GenericRecord of the writer schema and copying it.
 */
interface AvroValueReader {
    Object read(ResolvingDecoder in) throws IOException;

    AvroValueReader NULL = in -> {
        in.readNull();
        return null;
    };
    AvroValueReader BOOLEAN = ResolvingDecoder::readBoolean;
    AvroValueReader INT = ResolvingDecoder::readInt;
    AvroValueReader LONG = ResolvingDecoder::readLong;
    AvroValueReader FLOAT = ResolvingDecoder::readFloat;
    AvroValueReader DOUBLE = ResolvingDecoder::readDouble;
    AvroValueReader STRING = ResolvingDecoder::readString;
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
        return in -> byIndex[in.readEnum()];
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
            for (Schema.Field f : in.readFieldOrder()) {
                record.put(f.pos(), fields[f.pos()].read(in));
            }
            return record;
        };
    }

    /** A union of null and one other type. */
    static AvroValueReader nullable(int nullIndex, AvroValueReader value) {
        return in -> in.readIndex() == nullIndex ? readNull(in) : value.read(in);
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

    private static Object readNull(ResolvingDecoder in) throws IOException {
        in.readNull();
        return null;
    }
}
