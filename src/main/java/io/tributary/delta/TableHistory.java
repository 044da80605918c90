package io.tributary.delta;

import java.time.Instant;
import java.util.List;

/**
 * A table's recent commits, newest first ({@link Tables#history}). {@code complete} is false when the walk stopped at
 * its commit limit before reaching the start of the window: older commits of the window were not read.
 */
public record TableHistory(long latestVersion, List<Commit> commits, boolean complete) {

    /** One commit: its version, time, operation ({@code WRITE}, …; null if the writer named none) and what it added. */
    public record Commit(long version, Instant timestamp, String operation, long rowsAdded, int filesAdded) {}
}
