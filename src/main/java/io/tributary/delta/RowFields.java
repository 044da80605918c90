package io.tributary.delta;

import org.apache.parquet.io.api.Binary;
import org.apache.parquet.io.api.RecordConsumer;

/**
 * Where a {@link RowSource} writes the columns of one row: straight into the Parquet writer's record consumer. Columns
 * are written in increasing position; one left out is NULL (and must be nullable). Values are in the Avro data model
 * of the row schema's column ({@code schema.Decoder}'s), or primitives for the columns of known type.
 */
public final class RowFields {
    private final ValueWriters.Struct row;
    private final String[] lastString;
    private final Binary[] lastBinary;
    private RecordConsumer out;

    RowFields(ValueWriters.Struct row) {
        this.row = row;
        this.lastString = new String[row.names.length];
        this.lastBinary = new Binary[row.names.length];
    }

    void consumer(RecordConsumer out) {
        this.out = out;
    }

    RecordConsumer consumer() {
        return out;
    }

    /** A column's value in its Avro data model; null leaves it NULL. */
    public void value(int column, Object value) {
        row.field(out, column, value);
    }

    /** A column of Avro type long (a bigint, or a timestamp in microseconds). */
    public void longValue(int column, long value) {
        out.startField(row.names[column], column);
        out.addLong(value);
        out.endField(row.names[column], column);
    }

    /** A column of Avro type int. */
    public void intValue(int column, int value) {
        out.startField(row.names[column], column);
        out.addInteger(value);
        out.endField(row.names[column], column);
    }

    /**
     * A string column whose value repeats from row to row (a topic name, a constant): the encoded bytes of the same
     * String instance are reused.
     */
    public void repeatedString(int column, String value) {
        if (value == null) {
            row.absent(column);
            return;
        }
        if (lastString[column] != value) {
            lastString[column] = value;
            lastBinary[column] = Binary.fromString(value);
        }
        out.startField(row.names[column], column);
        out.addBinary(lastBinary[column]);
        out.endField(row.names[column], column);
    }
}
