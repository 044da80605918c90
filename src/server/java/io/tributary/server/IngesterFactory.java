package io.tributary.server;

import io.tributary.delta.TableSnapshot;
import io.tributary.ingest.PipelineSpec;
import io.tributary.ingest.StreamIngester;

/** Opens a stream's table and compiles its schemas into a fresh ingester; called again after every failure. */
interface IngesterFactory {

    Opened open(PipelineSpec spec);

    /** The stream's table alone, for reading where it stands. */
    TableSnapshot table(PipelineSpec spec);

    record Opened(TableSnapshot table, StreamIngester ingester) {}
}
