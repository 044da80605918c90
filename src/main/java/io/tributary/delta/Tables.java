package io.tributary.delta;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/** The warehouse: where tables live, and the operations on whole tables. */
public interface Tables {

    /**
     * The tables of a warehouse. Paths given to any method may be local or {@code s3://}, whatever the warehouse
     * root is, so external tables elsewhere work too.
     */
    static Tables forWarehouse(Warehouse warehouse) {
        return new KernelTables(warehouse, new RoutingStorage(() -> new S3Storage(S3Clients.create(warehouse))));
    }

    /** {@code warehouseRoot}: a path or {@code s3://bucket/prefix}; {@code s3Endpoint}: an S3-compatible server. */
    static Tables forWarehouse(String warehouseRoot, Optional<String> s3Endpoint) {
        return forWarehouse(new Warehouse(warehouseRoot, s3Endpoint));
    }

    /** {@code <warehouse>/<catalog>/<schema>/<table>}: where an unregistered table name resolves. */
    String defaultLocation(String catalog, String schema, String table);

    /**
     * The marker at the warehouse's root ({@code .tributary-registry}, not a table): what tells the storage one server
     * writes to from storage that only has the same name elsewhere (a local path on another machine). Empty when
     * there is none.
     *
     * @throws java.io.UncheckedIOException when the storage cannot be read
     */
    java.util.Optional<String> warehouseMarker();

    /**
     * Writes {@code marker} as the warehouse's marker unless it has one, atomically across processes.
     *
     * @return the warehouse's marker: {@code marker}, or the one it already had
     * @throws java.io.UncheckedIOException when the storage cannot be read or written
     */
    String claimWarehouseMarker(String marker);

    /** True when a Delta log exists at the location. */
    boolean exists(String location);

    /**
     * Creates the table with the given row schema (its columns in order) and records {@code startPositions} (the next
     * offset to ingest per partition) in the first commit.
     *
     * @throws TableExistsException when a Delta log already exists there
     */
    default DeltaTable create(String location, org.apache.avro.Schema rowSchema,
            Map<PartitionKey, Long> startPositions) {
        return create(location, rowSchema, startPositions, Map.of());
    }

    /**
     * As {@link #create(String, org.apache.avro.Schema, Map)}, each position recording the Kafka topic id of its topic
     * ({@code topicIds}: topic name to id, as the positions were read): a topic deleted and created again before the
     * stream's first commit then has another id and is ingested from its beginning, even once it has grown past the
     * positions (SPEC 4, recreated topics). Topics without an id adopt one at their first commit.
     */
    DeltaTable create(String location, org.apache.avro.Schema rowSchema, Map<PartitionKey, Long> startPositions,
            Map<String, String> topicIds);

    /** @throws NoSuchTableException when there is no Delta log at the location */
    DeltaTable open(String location);

    /**
     * {@link TableSnapshot#summary} of the table's latest version, with one read of the log ({@code open} then
     * {@code summary} read it twice).
     *
     * @throws NoSuchTableException when there is no Delta log at the location
     */
    TableSnapshot.Summary summary(String location);

    /** Deletes data files and log. Deleting an absent table is not an error. */
    void delete(String location);

    /** The columns of the table's current schema, in order. Works for any Delta table, not only ours. */
    List<Column> columns(String location);

    /**
     * The rows of the table's latest snapshot, read with Delta Kernel's scan (checkpoints, deletion vectors and
     * column mapping handled). Works for any Delta table.
     *
     * @throws NoSuchTableException when there is no Delta log at the location
     */
    TableRows read(String location);

    /** Like {@link #read(String)}, reading only the named top-level columns (rows hold just those). */
    TableRows read(String location, java.util.Set<String> columns);

    /** The live data files of the table's latest snapshot with their statistics. Works for any Delta table. */
    List<DataFileSummary> dataFiles(String location);

    /**
     * The table's commits since {@code since}, newest first, at most {@code maxCommits} of them, with the rows each
     * added (for the console's rows-per-minute chart). Works for any Delta table.
     *
     * @throws NoSuchTableException when there is no Delta log at the location
     */
    TableHistory history(String location, java.time.Instant since, int maxCommits);

    /**
     * The rows the commits after {@code afterVersion} added, up to the latest version ({@link TableChanges}); every
     * row of the latest snapshot when {@code afterVersion} is negative. For copies kept in step with the table.
     *
     * @throws NoSuchTableException when there is no Delta log at the location
     */
    TableChanges changesSince(String location, long afterVersion);

    /**
     * As {@link #changesSince}, up to {@code upToVersion} only: {@code (v - 1, v)} is what commit v added, for a reader
     * that must see commit boundaries (a feature view's watermark advances per commit).
     *
     * @throws NoSuchTableException when there is no Delta log at the location
     */
    TableChanges changesBetween(String location, long afterVersion, long upToVersion);

    /**
     * The live data files of the snapshot at {@code version} (the latest when negative), each with the least value of
     * the leaf column at {@code minColumn} (a path into structs) where its statistics give it.
     *
     * @throws NoSuchTableException when there is no Delta log at the location
     */
    SnapshotFiles snapshotFiles(String location, long version, java.util.List<String> minColumn);

    /**
     * The rows of some data files of the snapshot at {@code version} (from {@link #snapshotFiles}), read whole in the
     * order given, with that snapshot's schema; for tables {@link TableChanges} reads (no deletion vectors).
     */
    TableChanges changesOf(String location, long version, java.util.List<SnapshotFiles.File> files);
}
