package io.tributary.ingest;

import io.tributary.delta.PartitionKey;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;

/**
 * What one micro-batch added to the table. {@code committed} holds the records that landed (views of the batch, for
 * freshness metrics); {@code positions} are the table's positions after the commit as far as this writer knows them.
 */
public record CommitResult(
        long tableVersion,
        Instant committedAt,
        long rows,
        long bytes,
        long decodeFailures,
        long commitNanos,
        Map<PartitionKey, Long> positions,
        Collection<List<SourceRecord>> committed) {}
