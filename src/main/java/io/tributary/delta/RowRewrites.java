package io.tributary.delta;

import java.util.Optional;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericRecord;

/**
 * Rows marked by a nullable struct column (the rescue column of SPEC "Rescued records"): counted from the files'
 * statistics, and rewritten in place with a remove of each affected file and an add of its replacement in one commit.
 */
public interface RowRewrites extends TableSnapshot {

    /**
     * Rows of the latest snapshot whose struct {@code column} is set, from the statistics of the live files: the null
     * count of its field {@code alwaysSet}, which a set struct never has null. A file without statistics is read.
     */
    long rowsWithColumnSet(String column, String alwaysSet);

    /**
     * The top-level {@code columns} of the rows of the live files that hold a row whose {@code column} is set (chosen
     * as {@link #rowsWithColumnSet} counts): the caller filters the rows, the other files are not read at all.
     */
    TableRows readFilesWithColumnSet(String column, String alwaysSet, java.util.Set<String> columns);

    /**
     * Reads every live file holding a row whose {@code column} is set (chosen as {@link #rowsWithColumnSet} counts), each
     * row as a record of {@code rowSchema}, and passes it to {@code change}, which may modify it in place. Every file
     * in which {@code change} changed a row is replaced, in one commit run inside {@code guard}, by a file of the same
     * rows in the same order, the unchanged ones with their values as they were. Domain metadata (positions) is not
     * touched. Appends committed meanwhile are kept; a concurrent rewrite of the same files (a compaction) fails it.
     *
     * @param rowSchema the table's row schema as the writer knows it (record names matter to parquet-avro's unions)
     * @return the committed version; empty when no row changed
     * @throws TableChangedException when a concurrent commit removed one of the files first: nothing was committed
     * @throws StreamGoneException when {@code guard} found the table's owner gone: nothing was committed
     */
    Optional<Long> rewriteRows(String column, String alwaysSet, Schema rowSchema, RowChange change, WriteGuard guard);

    /** One row's change; {@code true} when it changed the row. Called on the rewriting thread only. */
    @FunctionalInterface
    interface RowChange {
        boolean apply(GenericRecord row);
    }

    /** The guard of {@link #rewriteRows} refused the commit: the table's owner (its stream) is gone. */
    final class StreamGoneException extends RuntimeException {
        public StreamGoneException(String location) {
            super("the table at " + location + " is being deleted", null, false, false);
        }
    }
}
