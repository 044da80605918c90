package io.tributary.delta;

import java.util.List;
import java.util.Optional;
import org.apache.avro.generic.GenericRecord;

/**
 * Writes data files for a commit to come (the data half of Kernel's {@code Transaction}) and widens the schema they
 * are written in. How the files are committed is the caller's role: {@link PositionCommits} for a stream's batches,
 * {@link ExclusiveCommits} for a backfill merge.
 */
public interface TableWriter extends TableSnapshot {

    /**
     * Writes rows (of the table's row schema) into one Parquet file with statistics. Not committed yet. Several threads
     * may write files of one table at once.
     */
    DataFile writeDataFile(Iterable<GenericRecord> rows);

    /**
     * The same file as {@link #writeDataFile(Iterable)} for the same rows, written by rows that emit their own fields
     * (no row object per record; statistics from the Parquet footer). The ingestion hot path.
     */
    DataFile writeRows(RowSource rows);

    /**
     * Deletes data files this writer wrote with {@link #writeDataFile} and will not commit. Best effort: a file left
     * behind is an orphan no snapshot references. Works when the table itself is gone.
     */
    void discard(List<DataFile> files);

    /**
     * Makes {@code rowSchema} the table's schema when it is the current one plus nullable columns or nullable nested
     * struct fields (in any position), in a commit of its own that every Delta reader sees; rows already written read
     * NULL there. Rows of the new schema can be written from then on; rows of the old one still can.
     *
     * @return the version of the change, or empty when the table already has exactly this schema
     * @throws IllegalArgumentException naming the column when the change drops, retypes or adds a non-nullable column
     */
    Optional<Long> evolveSchema(org.apache.avro.Schema rowSchema);
}
