package io.tributary.registry.service;

import io.tributary.delta.WriteGuard;

/**
 * What a runtime does after each commit to a stream's ingestion table, besides the commit: the all-in-one server
 * queues its CONTINUOUS synced tables' syncs and its feature views' rounds (SPEC §9.3, §10.3). Every writer of a
 * stream's table in this process wraps its write fence with it, the Kafka pipelines and the push endpoint alike, so
 * no path to a commit forgets them. The default (a Lambda function: it cannot work after its answer) adds nothing.
 */
public interface AfterCommits {
    /** {@code fence}, which also starts this runtime's after-commit work for {@code tableLocation} on each commit. */
    WriteGuard around(WriteGuard fence, String tableLocation);
}
