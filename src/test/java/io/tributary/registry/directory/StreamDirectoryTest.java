package io.tributary.registry.directory;


import static io.tributary.testing.Api.ALICE;
import static io.tributary.testing.Api.as;
import static io.tributary.testing.Api.unique;
import static io.tributary.testing.StreamRequests.valid;
import static io.tributary.testing.StreamRequests.with;
import static org.assertj.core.api.Assertions.assertThat;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.vertx.VertxContextSupport;
import io.tributary.delta.Tables;
import io.tributary.ingest.PipelineSpec;
import io.tributary.ingest.Subscription;
import io.tributary.schema.SchemaSource;
import jakarta.inject.Inject;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("quarkus")
@QuarkusTest
class StreamDirectoryTest {
    @Inject
    StreamDirectory directory;
    @Inject
    Tables tables;
    @ConfigProperty(name = "kafka.bootstrap.servers")
    String bootstrap;

    @Test
    void specsCarryEverythingAPipelineNeeds() throws Throwable {
        String connection = unique("dirconn");
        as(ALICE).body("{\"name\": \"" + connection + "\", \"connection_type\": \"KAFKA\", \"options\": "
                + "{\"bootstrap_servers\": \"" + bootstrap + "\"}}").post("/api/2.0/connections").then().statusCode(200);
        String topic = unique("dir");
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get();
        }
        String name = "main." + unique("dir") + ".events";
        String id = as(ALICE).body(with(valid(name, connection, topic + ", " + topic),
                        "schema_config.direct_schemas.key_schema", Map.of("avro_schema", "\"string\"")).toString())
                .post("/api/2.0/feature-engineering/streams").then().statusCode(200).extract().path("stream_id");

        Optional<PipelineSpec> spec = VertxContextSupport.subscribeAndAwait(() -> directory.byId(id));
        assertThat(spec).isPresent();
        PipelineSpec s = spec.get();
        assertThat(s.streamName()).isEqualTo(name);
        assertThat(s.tableLocation()).isEqualTo(tables.defaultLocation("main", name.split("\\.")[1],
                "events_ingestion"));
        assertThat(s.subscription()).isEqualTo(new Subscription.Topics(List.of(topic)));
        assertThat(s.kafkaProperties()).containsEntry("bootstrap.servers", bootstrap)
                .containsEntry("security.protocol", "PLAINTEXT");
        assertThat(s.keySchema()).isEqualTo(new SchemaSource.Avro("\"string\""));
        assertThat(s.valueSchema()).isInstanceOf(SchemaSource.JsonSchema.class);
        assertThat(s.createdAt()).isNotNull();

        // Small pages, so this walks several: every stream comes exactly once, in id order.
        List<PipelineSpec> all = new java.util.ArrayList<>();
        String after = null;
        do {
            String from = after;
            StreamDirectory.Page page = VertxContextSupport.subscribeAndAwait(() -> directory.page(from, 2));
            all.addAll(page.specs());
            after = page.lastId();
        } while (after != null);
        assertThat(all).extracting(PipelineSpec::streamId).contains(id).doesNotHaveDuplicates().isSorted();
        assertThat(VertxContextSupport.<Optional<PipelineSpec>>subscribeAndAwait(() -> directory.byId("nope")))
                .isEmpty();
    }
}
