package io.tributary.ingest;

import io.tributary.delta.DeltaTable;
import io.tributary.delta.TableSnapshot;
import io.tributary.delta.Tables;
import io.tributary.delta.WriteGuard;
import io.tributary.schema.SideSchema;
import io.tributary.schema.StreamSchema;

/**
 * A stream's table, opened, and a fresh ingester over it. One construction for every runtime (the server's pipelines
 * and the ingest function), so both decode and commit a stream the same way. With a schema registry, opening fetches
 * the subject's latest version, so reopening after a failure also picks up new versions.
 */
public record OpenedIngester(TableSnapshot table, StreamIngester ingester) {

    /** Unfenced: for tests and tools that write tables nobody deletes meanwhile. */
    public static OpenedIngester open(Tables tables, PipelineSpec spec) {
        return open(tables, spec, WriteGuard.NONE);
    }

    /**
     * @param guard the stream's write fence (the registry's {@code StreamWriteLocks.forStream}), around every commit
     * @throws io.tributary.delta.NoSuchTableException when the stream's table has no Delta log
     * @throws StreamDeletedException when the table could not be read because the stream was deleted
     */
    public static OpenedIngester open(Tables tables, PipelineSpec spec, WriteGuard guard) {
        StreamSchema schema = StreamSchema.of(
                SideSchema.compileExisting(spec.keySchema(), "schema_config.key_schema"),
                SideSchema.compileExisting(spec.valueSchema(), "schema_config.payload_schema"),
                spec.rescueUndecodable());
        DeltaTable table;
        try {
            table = tables.open(spec.tableLocation());
        } catch (RuntimeException e) {
            // A delete removing the location under the read fails it with whatever the storage says.
            if (guard.ownerGoneAfter(e)) {
                StreamDeletedException deleted = new StreamDeletedException(spec.tableLocation());
                deleted.addSuppressed(e);
                throw deleted;
            }
            throw e;
        }
        // The schema-aware constructor evolves the table to new compatible registry versions as messages name them.
        StreamIngester ingester = new StreamIngester(table, schema, guard);
        return new OpenedIngester(table, ingester);
    }
}
