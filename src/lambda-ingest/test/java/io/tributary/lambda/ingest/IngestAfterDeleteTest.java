package io.tributary.lambda.ingest;

import static io.restassured.RestAssured.given;
import static io.tributary.lambda.ingest.IngestHandlerTest.FUNCTION;
import static io.tributary.lambda.ingest.IngestHandlerTest.NOW;
import static io.tributary.lambda.ingest.IngestHandlerTest.ROOT;
import static org.assertj.core.api.Assertions.assertThat;

import io.tributary.testing.TestFiles;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.vertx.VertxContextSupport;
import io.restassured.response.Response;
import io.tributary.delta.Tables;
import io.tributary.ingest.PipelineSpec;
import io.tributary.registry.directory.StreamDirectory;
import io.tributary.registry.service.ConnectionService;
import io.tributary.registry.service.StreamService;
import jakarta.inject.Inject;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * SPEC 2.3 on AWS: the ingest function keeps a stream's ingester warm between invocations, and stream-api's delete
 * cannot reach it. An invocation after the delete (a batch the mapping had already polled) must write nothing under
 * the deleted location: its commit is fenced by the stream's write lock, finds the stream gone, and the file it wrote
 * is removed. The invocation fails naming the reason; the mapping goes with the stream.
 */
@Tag("quarkus")
@QuarkusTest
@QuarkusTestResource(InvokedFunctionEventServer.Resource.class)
class IngestAfterDeleteTest {

    @Inject
    StreamService streams;
    @Inject
    StreamDirectory directory;
    @Inject
    ConnectionService connections;
    @Inject
    Tables tables;
    @ConfigProperty(name = "kafka.bootstrap.servers")
    String bootstrap;
    @ConfigProperty(name = InvokedFunctionEventServer.URL)
    String invokeUrl;

    @Test
    void aWarmInvocationAfterTheDeleteWritesNothingUnderTheDeletedLocation() throws Throwable {
        String connection = "deleted-kafka-" + Long.toString(System.nanoTime(), 36);
        IngestFixtures.connection(connections, connection, bootstrap);
        String topic = "deleted-" + Long.toString(System.nanoTime(), 36);
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get();
        }
        String schema = "deleted_" + Long.toString(System.nanoTime(), 36);
        PipelineSpec spec = IngestFixtures.stream(directory, tables, connection, schema, "tx",
                "{\"subscribe\": \"" + topic + "\"}", Map.of());
        String alias = FUNCTION + ":" + StreamAlias.PREFIX + spec.streamId();

        produce(topic, "k1", "{\"id\":\"a1\",\"amount\":1}", NOW);
        Response first = invoke(alias, IngestFixtures.mskEventOf(IngestFixtures.readAll(bootstrap, topic)));
        assertThat(first.statusCode()).as(first.asString()).isEqualTo(200);
        assertThat(tables.open(spec.tableLocation()).status().numRecords()).isEqualTo(1);

        // The mapping has polled the next batch; the stream is deleted before the function commits it.
        produce(topic, "k2", "{\"id\":\"a2\",\"amount\":2}", NOW + 1);
        String polledBeforeTheDelete = IngestFixtures.mskEventOf(IngestFixtures.readAll(bootstrap, topic));
        VertxContextSupport.subscribeAndAwait(() -> streams.delete(ROOT, spec.streamName()));
        assertThat(TestFiles.under(spec.tableLocation())).isEmpty();

        Response late = invoke(alias, polledBeforeTheDelete);
        assertThat(TestFiles.under(spec.tableLocation())).as("nothing written under the deleted location").isEmpty();
        assertThat(tables.exists(spec.tableLocation())).isFalse();
        assertThat(late.statusCode()).isEqualTo(500);
        assertThat(late.asString()).contains("the stream was deleted");

        Response redelivered = invoke(alias, polledBeforeTheDelete);
        assertThat(redelivered.statusCode()).isEqualTo(500);
        assertThat(redelivered.asString()).contains("is not registered");
        assertThat(TestFiles.under(spec.tableLocation())).isEmpty();
    }

    private Response invoke(String invokedArn, String event) {
        return given().header(InvokedFunctionEventServer.INVOKED_ARN, invokedArn).contentType("application/json")
                .body(event).when().post(invokeUrl);
    }

    private void produce(String topic, String key, String value, long timestamp) throws Exception {
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(
                Map.<String, Object>of("bootstrap.servers", bootstrap), new StringSerializer(), new StringSerializer())) {
            producer.send(new ProducerRecord<>(topic, 0, timestamp, key, value)).get();
        }
    }
}
