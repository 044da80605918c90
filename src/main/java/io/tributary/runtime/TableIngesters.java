package io.tributary.runtime;

import io.tributary.delta.DeltaTable;
import io.tributary.delta.Tables;
import io.tributary.ingest.OpenedIngester;
import io.tributary.ingest.PipelineSpec;

/** The server's {@link IngesterFactory}: the shared construction of {@link OpenedIngester}. */
final class TableIngesters implements IngesterFactory {

    private final Tables tables;

    TableIngesters(Tables tables) {
        this.tables = tables;
    }

    @Override
    public Opened open(PipelineSpec spec) {
        OpenedIngester opened = OpenedIngester.open(tables, spec);
        return new Opened(opened.table(), opened.ingester());
    }

    @Override
    public DeltaTable table(PipelineSpec spec) {
        return tables.open(spec.tableLocation());
    }
}
