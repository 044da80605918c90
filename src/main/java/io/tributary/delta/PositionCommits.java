package io.tributary.delta;

import java.util.List;
import java.util.Map;

/**
 * A stream's commits: data files together with the next offset of every partition they hold, so the table alone
 * says where ingestion stands (exactly once). Kernel rebases such a commit over concurrent appends to other partitions.
 */
public interface PositionCommits extends TableWriter {

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
}
