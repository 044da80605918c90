package io.tributary.delta;

import java.util.List;
import java.util.Map;

/** The warehouse: where tables live, and the operations on whole tables. */
public interface Tables {

    /** {@code <warehouse>/<catalog>/<schema>/<table>}: where an unregistered table name resolves. */
    String defaultLocation(String catalog, String schema, String table);

    /** True when a Delta log exists at the location. */
    boolean exists(String location);

    /**
     * Creates the table with the given row schema (its columns in order) and records {@code startPositions} (the next
     * offset to ingest per partition) in the first commit.
     *
     * @throws TableExistsException when a Delta log already exists there
     */
    DeltaTable create(String location, org.apache.avro.Schema rowSchema, Map<PartitionKey, Long> startPositions);

    /** @throws NoSuchTableException when there is no Delta log at the location */
    DeltaTable open(String location);

    /** Deletes data files and log. Deleting an absent table is not an error. */
    void delete(String location);

    /** The columns of the table's current schema, in order. */
    List<Column> columns(String location);
}
