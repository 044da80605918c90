package io.tributary.server;

import io.tributary.delta.TableSnapshot;
import io.tributary.delta.Tables;
import io.tributary.delta.WriteGuard;
import io.tributary.ingest.OpenedIngester;
import io.tributary.ingest.PipelineSpec;
import java.util.function.Function;

/**
 * The server's {@link IngesterFactory}: the shared construction of {@link OpenedIngester}, each ingester fenced by its
 * stream's write guard.
 */
final class TableIngesters implements IngesterFactory {

    private final Tables tables;
    private final Function<PipelineSpec, WriteGuard> guards;

    /** Unfenced: for tests and benches whose tables nobody deletes while they run. */
    TableIngesters(Tables tables) {
        this(tables, spec -> WriteGuard.NONE);
    }

    TableIngesters(Tables tables, Function<PipelineSpec, WriteGuard> guards) {
        this.tables = tables;
        this.guards = guards;
    }

    @Override
    public Opened open(PipelineSpec spec) {
        OpenedIngester opened = OpenedIngester.open(tables, spec, guards.apply(spec));
        return new Opened(opened.table(), opened.ingester());
    }

    @Override
    public TableSnapshot table(PipelineSpec spec) {
        return tables.open(spec.tableLocation());
    }
}
