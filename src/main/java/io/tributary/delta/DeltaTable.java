package io.tributary.delta;

/**
 * One Delta table, as {@link Tables#open} and {@link Tables#create} give it (Kernel's {@code Table}): every role at
 * once. Callers depend on the narrow role they use, so what a caller may do to a table reads off its signature:
 *
 * <ul>
 *   <li>{@link TableSnapshot}: read the latest snapshot (status, row schema, domain metadata, positions);</li>
 *   <li>{@link TableWriter}: write and discard data files, widen the schema;</li>
 *   <li>{@link PositionCommits}: commit files with the partitions' next offsets (a stream's batches);</li>
 *   <li>{@link ExclusiveCommits}: commit files only if nothing landed since a version (a backfill merge);</li>
 *   <li>{@link TableUpkeep}: compact and vacuum;</li>
 *   <li>{@link RowRewrites}: count and rewrite rows marked by a struct column (rescued records).</li>
 * </ul>
 */
public interface DeltaTable extends PositionCommits, ExclusiveCommits, TableUpkeep, RowRewrites {}
