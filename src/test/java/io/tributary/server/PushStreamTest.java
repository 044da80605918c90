package io.tributary.server;

import static io.tributary.testing.Api.ALICE;
import static io.tributary.testing.Api.BOB;
import static io.tributary.testing.Api.as;
import static io.tributary.testing.Api.unique;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.hamcrest.Matchers.equalTo;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.tributary.delta.IndependentReader;
import io.tributary.delta.Tables;
import io.tributary.registry.lock.StreamWriteLocks;
import jakarta.inject.Inject;
import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.net.http.WebSocketHandshakeException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * SPEC "Direct ingest", the streaming connection, against the real server over a real WebSocket (the JDK's client):
 * acknowledgements in frame order, a retry after a reconnect acknowledged without writing, gaps refused, MODIFY and
 * credentials checked, flow control, and a delete ending the connection. Tables are read back with Kernel's stock
 * engine. Server only: stream-api (API Gateway HTTP API) serves no WebSocket.
 */
@Tag("quarkus")
@QuarkusTest
class PushStreamTest {
    static final String STREAMS = "/api/2.0/feature-engineering/streams";
    static final ObjectMapper JSON = new ObjectMapper();
    static final String JSON_SCHEMA =
            "{\"type\":\"object\",\"properties\":{\"id\":{\"type\":\"string\"},\"amount\":{\"type\":\"integer\"}}}";
    static final String AVRO_SCHEMA = "{\"type\":\"record\",\"name\":\"Order\",\"fields\":["
            + "{\"name\":\"id\",\"type\":\"string\"},{\"name\":\"amount\",\"type\":\"long\"}]}";

    @TestHTTPResource("/")
    URI base;
    @Inject
    Tables tables;
    @Inject
    StreamWriteLocks writeLocks;

    record Created(String name, String location) {}

    private Created create(String kind, String schema) {
        String schemaName = unique("ws");
        String name = "main." + schemaName + ".events";
        ObjectNode root = JSON.createObjectNode();
        root.put("name", name);
        root.putObject("source_config").putObject("direct_source_config");
        root.putObject("schema_config").putObject("direct_schemas").putObject("payload_schema").put(kind, schema);
        root.putObject("ingestion_config").putObject("ingestion_destination")
                .put("delta_table_name", name + "_ingestion");
        as(ALICE).body(root.toString()).post(STREAMS).then().statusCode(200);
        return new Created(name, tables.defaultLocation("main", schemaName, "events_ingestion"));
    }

    static String batch(String producer, long sequence, int records) {
        ObjectNode body = JSON.createObjectNode();
        body.put("producer_id", producer);
        body.put("sequence", sequence);
        ArrayNode list = body.putArray("records");
        for (int i = 0; i < records; i++) {
            ObjectNode r = list.addObject();
            r.put("key", producer + "/" + sequence + "/" + i);
            r.putObject("value").put("id", producer + "-" + sequence + "-" + i).put("amount", i);
        }
        return body.toString();
    }

    /** A connection's received messages and how it ended. */
    static final class Client implements WebSocket.Listener {
        final LinkedBlockingQueue<JsonNode> messages = new LinkedBlockingQueue<>();
        final CompletableFuture<String> closed = new CompletableFuture<>();
        private final StringBuilder partial = new StringBuilder();
        WebSocket socket;

        @Override
        public CompletionStage<?> onText(WebSocket webSocket, CharSequence data, boolean last) {
            partial.append(data);
            if (last) {
                try {
                    messages.add(JSON.readTree(partial.toString()));
                } catch (Exception e) {
                    closed.completeExceptionally(e);
                }
                partial.setLength(0);
            }
            webSocket.request(1);
            return null;
        }

        @Override
        public CompletionStage<?> onClose(WebSocket webSocket, int statusCode, String reason) {
            closed.complete(statusCode + " " + reason);
            return null;
        }

        @Override
        public void onError(WebSocket webSocket, Throwable error) {
            closed.completeExceptionally(error);
        }

        JsonNode next() throws InterruptedException {
            JsonNode m = messages.poll(60, TimeUnit.SECONDS);
            assertThat(m).as("an acknowledgement within 60 s").isNotNull();
            return m;
        }

        void send(String text) {
            socket.sendText(text, true).join();
        }

        void close() {
            socket.sendClose(WebSocket.NORMAL_CLOSURE, "done").join();
        }
    }

    private Client connect(String token, String stream, String query) throws Exception {
        Client client = new Client();
        String uri = "ws://" + base.getHost() + ":" + base.getPort() + STREAMS + "/" + stream + "/records/stream"
                + (query == null ? "" : "?" + query);
        WebSocket.Builder builder = HttpClient.newHttpClient().newWebSocketBuilder();
        if (token != null) {
            builder.header("Authorization", "Bearer " + token);
        }
        client.socket = builder.buildAsync(URI.create(uri), client).get(30, TimeUnit.SECONDS);
        return client;
    }

    private static Set<Object> ids(String location) {
        Set<Object> ids = new HashSet<>();
        for (Map<String, Object> row : IndependentReader.rows(location)) {
            assertThat(ids.add(((Map<?, ?>) row.get("value")).get("id"))).as("each row once").isTrue();
        }
        return ids;
    }

    @Test
    void acknowledgesPipelinedBatchesInOrderAndARetryAfterReconnectLandsOnce() throws Exception {
        Created s = create("json_schema", JSON_SCHEMA);
        Client c = connect(ALICE, s.name(), null);
        int window = org.eclipse.microprofile.config.ConfigProvider.getConfig()
                .getValue("tributary.direct.max-unacknowledged-batches", Integer.class);
        int batches = 3 * window;
        // A full window in flight, one more batch sent per acknowledgement: as a producer keeps its pipeline full.
        int sent = 0;
        for (; sent < window; sent++) {
            c.send(batch("ws-1", sent, 10));
        }
        long lastVersion = -1;
        for (int seq = 0; seq < batches; seq++) {
            JsonNode ack = c.next();
            if (sent < batches) {
                c.send(batch("ws-1", sent++, 10));
            }
            assertThat(ack.has("error_code")).as("ack %s", ack).isFalse();
            assertThat(ack.get("frame").asLong()).isEqualTo(seq + 1);
            assertThat(ack.get("producer_id").asText()).isEqualTo("ws-1");
            assertThat(ack.get("sequence").asLong()).isEqualTo(seq);
            assertThat(ack.get("committed_sequence").asLong()).isGreaterThanOrEqualTo(seq);
            assertThat(ack.get("table_version").asLong()).isGreaterThanOrEqualTo(lastVersion);
            lastVersion = ack.get("table_version").asLong();
        }
        assertThat(IndependentReader.version(s.location())).as("acknowledged means committed")
                .isGreaterThanOrEqualTo(lastVersion);
        long version = IndependentReader.version(s.location());
        // The producer lost the connection before it saw the last acknowledgements: it reconnects and sends them again.
        c.close();
        Client again = connect(ALICE, s.name(), null);
        again.send(batch("ws-1", batches - 2, 10));
        again.send(batch("ws-1", batches - 1, 10));
        again.send(batch("ws-1", batches, 10));
        for (int seq = batches - 2; seq <= batches; seq++) {
            JsonNode ack = again.next();
            assertThat(ack.has("error_code")).as("ack %s", ack).isFalse();
            assertThat(ack.get("sequence").asLong()).isEqualTo(seq);
        }
        assertThat(IndependentReader.version(s.location())).as("the retries wrote nothing").isEqualTo(version + 1);
        assertThat(ids(s.location())).hasSize((batches + 1) * 10);
        again.close();
    }

    /** A batch as large as the HTTP body may be (4 MB) goes in one message; the WebSocket default is 64 KB. */
    @Test
    void aBatchOfMegabytesGoesInOneMessage() throws Exception {
        Created s = create("json_schema", JSON_SCHEMA);
        Client c = connect(ALICE, s.name(), null);
        String big = batch("ws-big", 0, 30_000);
        assertThat(big.length()).isBetween(2_000_000, 4_000_000);
        c.send(big);
        JsonNode ack = c.next();
        assertThat(ack.has("error_code")).as("ack %s", ack).isFalse();
        assertThat(ack.get("committed_sequence").asLong()).isZero();
        assertThat(ids(s.location())).hasSize(30_000);
        c.close();
    }

    @Test
    void aGapIsRefusedWithTheExpectedSequenceAndTheConnectionGoesOn() throws Exception {
        Created s = create("json_schema", JSON_SCHEMA);
        Client c = connect(ALICE, s.name(), null);
        c.send(batch("g", 0, 1));
        assertThat(c.next().get("committed_sequence").asLong()).isEqualTo(0);
        c.send(batch("g", 2, 1));
        JsonNode gap = c.next();
        assertThat(gap.get("error_code").asText()).isEqualTo("RESOURCE_CONFLICT");
        assertThat(gap.get("producer_id").asText()).isEqualTo("g");
        assertThat(gap.get("sequence").asLong()).isEqualTo(2);
        assertThat(gap.get("message").asText()).contains("expected_sequence 1");
        // A malformed batch names its field and writes nothing; the connection stays open.
        c.send("{\"producer_id\": \"g\", \"sequence\": 1, \"records\": [{\"value\": {}, \"timestamp\": \"soon\"}]}");
        JsonNode bad = c.next();
        assertThat(bad.get("error_code").asText()).isEqualTo("INVALID_PARAMETER_VALUE");
        assertThat(bad.get("message").asText()).contains("records[0].timestamp");
        assertThat(bad.get("frame").asLong()).isEqualTo(3);
        c.send(batch("g", 1, 1));
        assertThat(c.next().get("committed_sequence").asLong()).isEqualTo(1);
        assertThat(ids(s.location())).containsExactlyInAnyOrder("g-0-0", "g-1-0");
        assertThat(c.closed).isNotDone();
        c.close();
    }

    @Test
    void connectingNeedsCredentialsAndPushingNeedsModify() throws Exception {
        Created s = create("json_schema", JSON_SCHEMA);
        ExecutionException unauthenticated = org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class,
                () -> connect(null, s.name(), null));
        assertThat(unauthenticated.getCause()).isInstanceOf(WebSocketHandshakeException.class);
        assertThat(((WebSocketHandshakeException) unauthenticated.getCause()).getResponse().statusCode())
                .isEqualTo(401);
        assertThatThrownBy(() -> connect("wrong-token", s.name(), null)).hasCauseInstanceOf(
                WebSocketHandshakeException.class);

        Client bob = connect(BOB, s.name(), null);
        JsonNode refused = bob.next();
        assertThat(refused.get("error_code").asText()).isEqualTo("PERMISSION_DENIED");
        assertThat(refused.get("message").asText()).contains("MODIFY");
        assertThat(bob.closed.get(30, TimeUnit.SECONDS)).startsWith("4403 PERMISSION_DENIED");

        String table = s.name() + "_ingestion";
        as(ALICE).body("{\"changes\": [{\"principal\": \"bob\", \"add\": [\"MODIFY\"]}]}")
                .patch("/api/2.1/unity-catalog/permissions/table/" + table).then().statusCode(200);
        Client granted = connect(BOB, s.name(), null);
        granted.send(batch("b", 0, 2));
        assertThat(granted.next().get("committed_sequence").asLong()).isEqualTo(0);
        // Revoked while connected: the next batch is refused like an HTTP push, and the connection ends.
        as(ALICE).body("{\"changes\": [{\"principal\": \"bob\", \"remove\": [\"MODIFY\"]}]}")
                .patch("/api/2.1/unity-catalog/permissions/table/" + table).then().statusCode(200);
        granted.send(batch("b", 1, 2));
        assertThat(granted.next().get("error_code").asText()).isEqualTo("PERMISSION_DENIED");
        assertThat(granted.closed.get(30, TimeUnit.SECONDS)).startsWith("4403");
        assertThat(ids(s.location())).containsExactlyInAnyOrder("b-0-0", "b-0-1");

        Client missing = connect(ALICE, "main.nothing_here.events", null);
        assertThat(missing.next().get("error_code").asText()).isEqualTo("RESOURCE_DOES_NOT_EXIST");
        assertThat(missing.closed.get(30, TimeUnit.SECONDS)).startsWith("4404");
    }

    @Test
    void binaryFramesCarryTheContentTypeChosenAtConnect() throws Exception {
        Created s = create("avro_schema", AVRO_SCHEMA);
        Schema order = new Schema.Parser().parse(AVRO_SCHEMA);
        GenericRecord value = new GenericData.Record(order);
        value.put("id", "bin-1");
        value.put("amount", 8L);
        Schema requestSchema = io.tributary.ingest.direct.PushBodies.AVRO_SCHEMA;
        GenericRecord record = new GenericData.Record(requestSchema.getField("records").schema().getElementType());
        record.put("key", ByteBuffer.wrap("k".getBytes(StandardCharsets.UTF_8)));
        record.put("value", ByteBuffer.wrap(avro(order, value)));
        record.put("timestamp_ms", 1_764_583_200_000L);
        GenericRecord request = new GenericData.Record(requestSchema);
        request.put("producer_id", "bin");
        request.put("sequence", 0L);
        request.put("records", List.of(record));

        Client c = connect(ALICE, s.name(), "content_type=avro/binary");
        c.socket.sendBinary(ByteBuffer.wrap(avro(requestSchema, request)), true).join();
        JsonNode ack = c.next();
        assertThat(ack.has("error_code")).as("ack %s", ack).isFalse();
        assertThat(ack.get("committed_sequence").asLong()).isEqualTo(0);
        // Text frames are JSON on any connection.
        c.send("{\"producer_id\": \"bin\", \"sequence\": 1, \"records\": [{\"value\": {\"id\": \"txt-1\", "
                + "\"amount\": 9}}]}");
        assertThat(c.next().get("committed_sequence").asLong()).isEqualTo(1);
        assertThat(ids(s.location())).containsExactlyInAnyOrder("bin-1", "txt-1");
        c.close();

        Client wrong = connect(ALICE, s.name(), "content_type=text/csv");
        assertThat(wrong.next().get("message").asText()).contains("content_type");
        assertThat(wrong.closed.get(30, TimeUnit.SECONDS)).startsWith("4400");
    }

    /**
     * While the table's commits are held (the delete's exclusive lock, taken by the test), a producer sends more
     * batches than the connection's window: those beyond it are refused at once, in order, with nothing written; the
     * ones within it are committed once the lock goes.
     */
    @Test
    void batchesBeyondTheWindowAreRefusedAndWriteNothing() throws Exception {
        Created s = create("json_schema", JSON_SCHEMA);
        int window = org.eclipse.microprofile.config.ConfigProvider.getConfig()
                .getValue("tributary.direct.max-unacknowledged-batches", Integer.class);
        Client c = connect(ALICE, s.name(), null);
        int sent = window + 5;
        StreamWriteLocks.Exclusive held = writeLocks.exclusive(s.location());
        try {
            for (int i = 0; i < sent; i++) {
                c.send(batch("f-" + i, 0, 1));
            }
            Thread.sleep(1000);
            assertThat(c.messages).as("nothing is acknowledged while commits are held").isEmpty();
        } finally {
            held.close();
        }
        List<JsonNode> acks = new ArrayList<>();
        for (int i = 0; i < sent; i++) {
            acks.add(c.next());
        }
        for (int i = 0; i < sent; i++) {
            JsonNode ack = acks.get(i);
            assertThat(ack.get("frame").asLong()).isEqualTo(i + 1);
            if (i < window) {
                assertThat(ack.has("error_code")).as("ack %s", ack).isFalse();
            } else {
                assertThat(ack.get("error_code").asText()).isEqualTo("TEMPORARILY_UNAVAILABLE");
                assertThat(ack.get("message").asText()).contains("not acknowledged yet");
            }
        }
        assertThat(ids(s.location())).hasSize(window);
        // With the window free again, a refused batch goes through.
        c.send(batch("f-" + window, 0, 1));
        assertThat(c.next().has("error_code")).isFalse();
        c.close();
    }

    @Test
    void aDeleteClosesTheConnectionWithAClearReason() throws Exception {
        Created s = create("json_schema", JSON_SCHEMA);
        Client c = connect(ALICE, s.name(), null);
        c.send(batch("d", 0, 3));
        assertThat(c.next().has("error_code")).isFalse();
        as(ALICE).delete(STREAMS + "/" + s.name()).then().statusCode(200);
        assertThat(c.closed.get(30, TimeUnit.SECONDS)).startsWith("4404 RESOURCE_DOES_NOT_EXIST").contains("deleted");
        assertThat(tables.exists(s.location())).isFalse();
        as(ALICE).get(STREAMS + "/" + s.name()).then().statusCode(404).body("error_code",
                equalTo("RESOURCE_DOES_NOT_EXIST"));
    }

    private static byte[] avro(Schema schema, GenericRecord datum) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(out, null);
        new GenericDatumWriter<GenericRecord>(schema).write(datum, encoder);
        encoder.flush();
        return out.toByteArray();
    }
}
