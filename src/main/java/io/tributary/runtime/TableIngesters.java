package io.tributary.runtime;

import io.tributary.delta.DeltaTable;
import io.tributary.delta.Tables;
import io.tributary.ingest.PipelineSpec;
import io.tributary.ingest.StreamIngester;
import io.tributary.schema.SideSchema;
import io.tributary.schema.StreamSchema;

/**
 * Opens a stream's table and compiles its schemas. With a schema registry, compiling fetches the subject's latest
 * version; the ingester then evolves the table to it, and to later compatible versions as messages name them.
 */
final class TableIngesters implements IngesterFactory {

    private final Tables tables;

    TableIngesters(Tables tables) {
        this.tables = tables;
    }

    @Override
    public Opened open(PipelineSpec spec) {
        StreamSchema schema = StreamSchema.of(
                SideSchema.compile(spec.keySchema(), "schema_config.key_schema"),
                SideSchema.compile(spec.valueSchema(), "schema_config.payload_schema"));
        DeltaTable table = tables.open(spec.tableLocation());
        StreamIngester ingester = new StreamIngester(table, schema);
        return new Opened(table, ingester);
    }
}
