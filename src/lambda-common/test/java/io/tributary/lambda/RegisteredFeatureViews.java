package io.tributary.lambda;

import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.delta.Tables;
import io.tributary.features.FeatureViewSpec;
import io.tributary.ingest.PipelineSpec;
import io.tributary.registry.features.FeatureViewRow;
import io.tributary.registry.features.FeatureViewStore;
import io.tributary.registry.features.FeatureViews;
import java.time.Instant;
import java.util.UUID;

/**
 * Creates feature views the way stream-api leaves them (registry row, online tables, empty offline table), for the
 * functions that only run them: the ingest function after its commits, the backfill function at its tick.
 */
public final class RegisteredFeatureViews {
    private RegisteredFeatureViews() {}

    /**
     * A view {@code <stream name>_features} over {@code stream} (registered as {@code main.<schema>.<table>}), keyed
     * by {@code entityColumn}; {@code features} is the request's {@code features} array as JSON.
     */
    public static FeatureViewSpec create(FeatureViewStore registry, FeatureViews views, Tables tables,
            PipelineSpec stream, String schema, String table, String entityColumn, String features) {
        String streamName = "main." + schema + "." + table;
        String name = streamName + "_features";
        String id = UUID.randomUUID().toString();
        String definition = "{\"name\": \"" + name + "\", \"source\": {\"stream_name\": \"" + streamName + "\"}, "
                + "\"entity_columns\": [\"" + entityColumn + "\"], \"features\": " + features + "}";
        FeatureViewRow row = new FeatureViewRow(name, id, streamName + "_ingestion", stream.tableLocation(),
                stream.streamId(), tables.defaultLocation("main", schema, table + "_features"),
                "fv_" + id.replace("-", "").substring(0, 24), definition, RegisteredStreams.ROOT.name(),
                Instant.now());
        assertThat(registry.insert(row)).isTrue();
        FeatureViewSpec spec = views.spec(row);
        views.provision(spec);
        return spec;
    }
}
