package io.tributary.delta;

import org.apache.avro.Schema;

/**
 * Rows that write themselves into a data file field by field ({@link TableWriter#writeRows}), so no row
 * object is built per record: {@link #next} readies a row (decodes it completely: a row half written into a Parquet
 * file cannot be taken back), {@link #emit} then writes its columns. Not thread-safe; one file at a time.
 */
public interface RowSource {
    /** The Avro row schema the rows follow, as for {@link TableWriter#writeDataFile(Iterable)}. */
    Schema rowSchema();

    /** Starts over at the first row (a file is written afresh when a batch is retried). */
    void rewind();

    /** Readies the next row; false when there is none. */
    boolean next();

    /** Writes the readied row's columns, in the row schema's order; a column not written is NULL. */
    void emit(RowFields row);
}
