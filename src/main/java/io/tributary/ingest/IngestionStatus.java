package io.tributary.ingest;

import java.time.Instant;
import java.util.List;

/** SPEC 2.3 {@code state}, {@code state_message} and {@code ingestion_status}. */
public record IngestionStatus(
        State state,
        String stateMessage,
        Instant lastCommitAt,
        long tableVersion,
        long rowsIngested,
        long decodeFailures,
        List<PartitionStatus> partitions) {

    public enum State { RUNNING, FAILED }

    /** {@code committedOffset} is the next offset to ingest, from the table's log; {@code lag} is end offset minus it. */
    public record PartitionStatus(String topic, int partition, long committedOffset, long lag) {}
}
