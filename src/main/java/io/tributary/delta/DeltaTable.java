package io.tributary.delta;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.avro.generic.GenericRecord;

/** One Delta table. Every method reads the latest committed state of the log. */
public interface DeltaTable {

    String location();

    /** The next offset to ingest per partition, as the latest commit records it. */
    Map<PartitionKey, Long> positions();

    /** Everything the latest commit records per partition: position, Kafka topic id, last recreation. */
    Map<PartitionKey, PartitionPosition> positionDetails();

    /**
     * Writes rows (of the table's row schema) into one Parquet file with statistics. Not committed yet. Several threads
     * may write files of one table at once.
     */
    DataFile writeDataFile(Iterable<GenericRecord> rows);

    /**
     * Commits the files and the new positions in one Delta commit. Succeeds only if, for every partition in
     * {@code ranges}, the table has no position for it, or its position is {@code range.from()} of the same topic id
     * (a position without an id takes the range's), or the range is a {@link OffsetRange#reset reset} of exactly the
     * position the table has.
     *
     * @return the committed table version
     * @throws PositionConflictException when another writer got there first; nothing was committed
     */
    long commit(List<DataFile> files, Map<PartitionKey, OffsetRange> ranges);

    Status status();

    /**
     * Makes {@code rowSchema} the table's schema when it is the current one plus nullable columns or nullable nested
     * struct fields (in any position), in a commit of its own that every Delta reader sees; rows already written read
     * NULL there. Rows of the new schema can be written from then on; rows of the old one still can.
     *
     * @return the version of the change, or empty when the table already has exactly this schema
     * @throws IllegalArgumentException naming the column when the change drops, retypes or adds a non-nullable column
     */
    Optional<Long> evolveSchema(org.apache.avro.Schema rowSchema);

    /**
     * Table maintenance: rewrites data files smaller than half of {@code targetFileBytes} into files of up to about
     * that size, in one commit that changes no row (concurrent appends are not lost). Files with deletion vectors
     * and partitioned tables are left alone.
     *
     * @return the committed version, or empty when there was nothing to compact or a concurrent compaction won
     */
    Optional<Long> compact(long targetFileBytes);

    /** Below this a vacuum could take the file of a commit still in flight. */
    java.time.Duration MIN_VACUUM_RETENTION = java.time.Duration.ofHours(1);

    /**
     * Table maintenance: deletes data files that no reader can need: not referenced by the latest snapshot, not removed
     * by a commit within {@code retention} (time travel to any version of that period still works), and last modified
     * before {@code retention} (an uncommitted file of a writer in flight stays). Never touches the log.
     *
     * @throws IllegalArgumentException when {@code retention} is below {@link #MIN_VACUUM_RETENTION}
     */
    VacuumResult vacuum(java.time.Duration retention);

    record VacuumResult(int filesDeleted, long bytesDeleted) {}

    /** The Avro row schema of the table's current Delta schema: rows of it are accepted by {@link #writeDataFile}. */
    org.apache.avro.Schema rowSchema();

    /** The configuration of a domain metadata entry in the latest snapshot, if the domain is set. */
    Optional<String> domainMetadata(String domain);

    /**
     * The rows of the data files live now that were not live at {@code version}: what other writers appended since.
     * {@link TableRows#version()} is the version read.
     */
    TableRows rowsAddedSince(long version);

    /**
     * Commits the files and the domain metadata in one Delta commit only if no other commit landed after
     * {@code basedOn}: for a writer that filtered its rows against that version. Position domains keep their values.
     *
     * @return the committed version ({@code basedOn + 1})
     * @throws TableChangedException when the table moved past {@code basedOn}; nothing was committed
     */
    long commitExclusive(long basedOn, List<DataFile> files, Map<String, String> domainMetadata);

    /**
     * Deletes data files this writer wrote with {@link #writeDataFile} and will not commit. Best effort: a file left
     * behind is an orphan no snapshot references. Works when the table itself is gone.
     */
    void discard(List<DataFile> files);

    /** {@code decodeFailures}: keys and values that could not be decoded since the table was created. */
    record Status(long version, Optional<Instant> lastCommitAt, long numRecords, long decodeFailures) {}
}
