package io.tributary.testing;

import org.junit.jupiter.api.Tag;

import static io.tributary.testing.Api.ALICE;
import static io.tributary.testing.Api.as;
import static io.tributary.testing.Api.unique;
import static io.tributary.testing.StreamRequests.valid;
import static org.hamcrest.Matchers.equalTo;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The registry against PostgreSQL and Kafka in containers ({@code ./mvnw test -Pcontainers}). Skipped without Docker
 * and outside that profile; the embedded services ({@link TributaryServices}) cover the same paths by default.
 */
@Tag("quarkus")
@QuarkusTest
@TestProfile(ContainersApiTest.Containers.class)
@EnabledIfSystemProperty(named = "tributary.test.containers", matches = "true")
@ExtendWith(DockerAvailable.class)
class ContainersApiTest {

    public static class Containers implements QuarkusTestProfile {
        @Override
        public List<TestResourceEntry> testResources() {
            return List.of(new TestResourceEntry(ContainerServices.class));
        }
    }

    @ConfigProperty(name = "kafka.bootstrap.servers")
    String bootstrap;

    @Test
    void streamLifecycleOnContainers() throws Exception {
        String connection = unique("c");
        as(ALICE).body("{\"name\": \"" + connection + "\", \"connection_type\": \"KAFKA\", \"options\": "
                + "{\"bootstrap_servers\": \"" + bootstrap.replaceFirst("^PLAINTEXT://", "") + "\"}}")
                .post("/api/2.0/connections").then().statusCode(200);
        String topic = unique("t");
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
            admin.createTopics(List.of(new NewTopic(topic, 2, (short) 1))).all().get();
        }
        String name = "main." + unique("c") + ".events";
        as(ALICE).body(valid(name, connection, topic).toString()).post("/api/2.0/feature-engineering/streams").then()
                .statusCode(200).body("state", equalTo("RUNNING"));
        as(ALICE).get("/api/2.0/feature-engineering/streams/" + name).then().statusCode(200);
        as(ALICE).delete("/api/2.0/feature-engineering/streams/" + name).then().statusCode(200);
    }
}
