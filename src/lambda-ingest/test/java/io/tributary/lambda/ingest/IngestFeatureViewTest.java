package io.tributary.lambda.ingest;

import static io.tributary.lambda.ingest.IngestFixtures.Rec;
import static org.assertj.core.api.Assertions.assertThat;

import io.quarkus.test.junit.QuarkusTest;
import io.tributary.delta.PartitionKey;
import io.tributary.delta.Tables;
import io.tributary.features.FeatureLookup;
import io.tributary.features.FeatureState;
import io.tributary.features.FeatureViewSpec;
import io.tributary.ingest.PipelineSpec;
import io.tributary.lambda.RegisteredFeatureViews;
import io.tributary.registry.directory.StreamDirectory;
import io.tributary.registry.features.FeatureViewStore;
import io.tributary.registry.features.FeatureViews;
import io.tributary.registry.service.ConnectionService;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * On AWS the ingest function materializes a stream's feature views with what it committed, before it returns (a frozen
 * function runs nothing later): the view's state has consumed the invocation's commit, and a lookup finds its
 * features. The server's side is {@code server.FeatureViewsServerTest}; this is the other runtime's.
 */
@Tag("quarkus")
@QuarkusTest
class IngestFeatureViewTest {
    private static final long T0 = 1_700_000_040_000L; // 40 s into a minute: the three records share one window

    @Inject
    StreamIngestion ingestion;
    @Inject
    StreamDirectory directory;
    @Inject
    ConnectionService connections;
    @Inject
    Tables tables;
    @Inject
    FeatureViewStore registry;
    @Inject
    FeatureViews views;
    @org.eclipse.microprofile.config.inject.ConfigProperty(name = "kafka.bootstrap.servers")
    String bootstrap;

    @Test
    void whatAnInvocationCommitsIsMaterializedWhenItReturns() throws Throwable {
        IngestFixtures.connection(connections, "ingest-features-kafka", bootstrap);
        String schema = "features" + Long.toString(System.nanoTime(), 36);
        PipelineSpec stream = IngestFixtures.stream(directory, tables, "ingest-features-kafka", schema, "tx",
                "{\"subscribe\":\"tx\"}", Map.of(new PartitionKey("tx", 0), 0L));
        // A view as the API creates it (the stream-api function's): registry row, online tables, offline table.
        FeatureViewSpec spec = RegisteredFeatureViews.create(registry, views, tables, stream, schema, "tx", "value.id",
                "[{\"name\": \"n\", \"function\": \"count\", \"window\": {\"tumbling\": {\"duration\": \"1m\"}}}, "
                + "{\"name\": \"total\", \"function\": \"sum\", \"column\": \"value.amount\", "
                + "\"window\": {\"tumbling\": {\"duration\": \"1m\"}}}]");

        StreamIngestion.Outcome outcome = ingestion.ingest(stream.streamId(), KafkaEvent.parse(IngestFixtures
                .selfManagedEvent(List.of(
                        new Rec("tx", 0, 0, T0, "k", "{\"id\":\"a\",\"amount\":1}"),
                        new Rec("tx", 0, 1, T0 + 1, "k", "{\"id\":\"b\",\"amount\":2}"),
                        new Rec("tx", 0, 2, T0 + 2, "k", "{\"id\":\"a\",\"amount\":3}")))
                .getBytes(StandardCharsets.UTF_8)));

        assertThat(outcome.rowsAdded()).isEqualTo(3);
        FeatureState state = views.store().state(spec.id());
        assertThat(state.state()).isEqualTo(FeatureState.ONLINE);
        assertThat(state.version()).isEqualTo(outcome.tableVersion().orElseThrow());
        assertThat(state.recordsRead()).isEqualTo(3);
        List<Map<String, Object>> found = views.lookup().lookup(spec, List.of(
                key("a"), key("b"), key("nobody")), Instant.now());
        assertThat(found.get(0)).containsEntry("n", 2L).containsEntry("total", 4.0);
        assertThat(found.get(1)).containsEntry("n", 1L).containsEntry("total", 2.0);
        assertThat(found.get(2)).isNull();
    }

    /** An entity as lookups name it (the API's keys, encoded as the online store keeps them). */
    private static FeatureLookup.Key key(String id) {
        return new FeatureLookup.Key(io.tributary.features.EntityKeys.of(List.of(id)), null);
    }
}
