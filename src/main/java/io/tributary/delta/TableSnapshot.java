package io.tributary.delta;

import java.time.Instant;
import java.util.Map;
import java.util.Optional;

/**
 * What a table's latest snapshot records (Kernel's {@code Snapshot}): its version and size, its row schema, its domain
 * metadata and, among those, the position of every partition. Each call reads the latest committed state of the log.
 * For a reader that changes nothing: the API's statuses, a pipeline that seeks its consumer to the positions.
 */
public interface TableSnapshot {

    String location();

    Status status();

    /** The latest version alone: a listing of the log, without the walk over its files that {@link #status} does. */
    default long version() {
        return status().version();
    }

    /** The Avro row schema of the table's current Delta schema: rows of it are accepted by {@link TableWriter}. */
    org.apache.avro.Schema rowSchema();

    /** The configuration of a domain metadata entry in the latest snapshot, if the domain is set. */
    Optional<String> domainMetadata(String domain);

    /** The next offset to ingest per partition, as the latest commit records it. */
    Map<PartitionKey, Long> positions();

    /** Everything the latest commit records per partition: position, Kafka topic id, last recreation. */
    Map<PartitionKey, PartitionPosition> positionDetails();

    /**
     * {@link #status} and {@link #positionDetails} of one and the same version, from a single read of the log: what a
     * stream's status shows (the API's GET, a pipeline that has not run yet). Two calls read the log twice, and on
     * object storage each read is a listing and several GETs; they may also see two versions.
     */
    Summary summary();

    /** {@code decodeFailures}: keys and values that could not be decoded since the table was created. */
    record Status(long version, Optional<Instant> lastCommitAt, long numRecords, long decodeFailures) {}

    /** A version's status with every partition's position as that version records it. */
    record Summary(Status status, Map<PartitionKey, PartitionPosition> positions) {}
}
