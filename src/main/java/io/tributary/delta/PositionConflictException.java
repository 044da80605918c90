package io.tributary.delta;

import java.util.Map;

/**
 * The table's committed position for some partitions is not where the micro-batch starts: another writer (or an
 * earlier delivery of the same batch) committed those offsets first. Nothing was committed; {@code committed} holds
 * the table's current positions so the caller can drop what is already in the table and retry.
 */
public final class PositionConflictException extends RuntimeException {
    private final Map<PartitionKey, Long> committed;

    public PositionConflictException(Map<PartitionKey, Long> committed) {
        super("the table's positions moved: " + committed, null, false, false);
        this.committed = Map.copyOf(committed);
    }

    public Map<PartitionKey, Long> committed() {
        return committed;
    }
}
