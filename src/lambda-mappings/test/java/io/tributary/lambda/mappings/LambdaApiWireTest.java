package io.tributary.lambda.mappings;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.tributary.ingest.PipelineSpec;
import io.tributary.ingest.Subscription;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.lambda.LambdaClient;

/**
 * {@link SignedLambdaApi} sends what the AWS SDK's {@code LambdaClient} (a test dependency only) sends for the same
 * operation: method, encoded path, JSON body and SigV4 credential scope and signed headers, both recorded by one
 * local HTTP server. For CreateEventSourceMapping the SDK is given our body read back into its model, so a member it
 * does not know would be missing from what it sends. Lambda's error types become {@link LambdaApi}'s exceptions, and
 * throttling is tried again.
 */
class LambdaApiWireTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern CREDENTIAL = Pattern.compile("Credential=([^,]+), SignedHeaders=([^,]+), Signature=");

    record Recorded(String method, String path, String body, String authorization) {}

    /** status, error type (or null), body. */
    record Reply(int status, String errorType, String body) {}

    private final List<Recorded> recorded = new CopyOnWriteArrayList<>();
    private final Deque<Reply> replies = new ArrayDeque<>();
    private HttpServer server;
    private LambdaClient sdk;
    private SignedLambdaApi ours;

    @BeforeEach
    void start() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", this::handle);
        server.start();
        URI endpoint = URI.create("http://127.0.0.1:" + server.getAddress().getPort());
        StaticCredentialsProvider credentials = StaticCredentialsProvider.create(
                AwsBasicCredentials.create("AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"));
        sdk = LambdaClient.builder().httpClient(UrlConnectionHttpClient.create()).region(Region.EU_WEST_1)
                .credentialsProvider(credentials).endpointOverride(endpoint).build();
        ours = new SignedLambdaApi(UrlConnectionHttpClient.create(), credentials, "eu-west-1", endpoint);
    }

    @AfterEach
    void stop() {
        sdk.close();
        ours.close();
        server.stop(0);
    }

    @Test
    void createEventSourceMappingSendsTheSdksRequest() {
        ObjectNode selfManaged = new MappingRequests(new TestMappingSettings()).request(spec(), KafkaAccess.of(Map.of(
                "bootstrap.servers", "b1.example.com:9096,b2.example.com:9096", "sasl.mechanism", "SCRAM-SHA-512",
                "sasl.jaas.config", "ScramLoginModule required username=\"u\" password=\"p\";")),
                Optional.of("arn:aws:secretsmanager:eu-west-1:123456789012:secret:tributary/kafka/s1-AbC"),
                Optional.empty(), "stream-s1", "tx-eu");
        ObjectNode msk = new MappingRequests(new TestMappingSettings()).request(spec(), KafkaAccess.of(Map.of(
                "bootstrap.servers", "b-1.events.abc.c2.kafka.eu-west-1.amazonaws.com:9098",
                "sasl.mechanism", "AWS_MSK_IAM")), Optional.empty(), Optional.of(FakeLambda.MSK), "stream-s1", "orders");
        for (ObjectNode request : List.of(selfManaged, msk)) {
            reply(202, null, "{\"UUID\": \"u-1\", \"State\": \"Creating\"}");
            sdk.createEventSourceMapping(FakeLambda.asSdkRequest(request));
            reply(202, null, "{\"UUID\": \"u-1\", \"State\": \"Creating\"}");
            assertThat(ours.createEventSourceMapping(request)).isEqualTo("u-1");
            assertThat(json(assertSameAsTheSdk().body())).isEqualTo(request);
        }
    }

    @Test
    void aliasAndMappingCallsSendTheSdksRequests() {
        reply(201, null, "{\"Name\": \"stream-s1\"}");
        sdk.createAlias(r -> r.functionName(FakeLambda.INGEST).name("stream-s1").functionVersion("$LATEST")
                .description("Tributary stream main.fraud.tx"));
        reply(201, null, "{\"Name\": \"stream-s1\"}");
        ours.createAlias(FakeLambda.INGEST, "stream-s1", "Tributary stream main.fraud.tx");
        // The function ARN is one path segment, its colons encoded.
        assertThat(assertSameAsTheSdk().path())
                .isEqualTo("/2015-03-31/functions/arn%3Aaws%3Alambda%3Aeu-west-1%3A123456789012%3Afunction%3A"
                        + "tributary-ingest/aliases");

        reply(204, null, "");
        sdk.deleteAlias(r -> r.functionName(FakeLambda.INGEST).name("stream-s1"));
        reply(204, null, "");
        ours.deleteAlias(FakeLambda.INGEST, "stream-s1");
        assertSameAsTheSdk();

        reply(202, null, "{\"UUID\": \"u-1\", \"State\": \"Deleting\"}");
        sdk.deleteEventSourceMapping(r -> r.uuid("u-1"));
        reply(202, null, "{\"UUID\": \"u-1\", \"State\": \"Deleting\"}");
        ours.deleteEventSourceMapping("u-1");
        assertSameAsTheSdk();

        reply(200, null, "{\"UUID\": \"u-1\", \"State\": \"Deleting\"}");
        sdk.getEventSourceMapping(r -> r.uuid("u-1"));
        reply(200, null, "{\"UUID\": \"u-1\", \"State\": \"Deleting\"}");
        assertThat(ours.eventSourceMappingExists("u-1")).isTrue();
        assertSameAsTheSdk();
    }

    @Test
    void lambdasErrorTypesBecomeTheApisExceptions() {
        reply(404, "ResourceNotFoundException", "{\"Type\": \"User\", \"message\": \"The resource you requested does "
                + "not exist.\"}");
        assertThat(ours.eventSourceMappingExists("u-9")).isFalse();
        reply(404, "ResourceNotFoundException", "{\"Type\": \"User\", \"message\": \"Alias not found\"}");
        assertThatThrownBy(() -> ours.deleteAlias(FakeLambda.INGEST, "stream-s9"))
                .isInstanceOf(LambdaApi.NotFoundException.class).hasMessageContaining("Alias not found");
        reply(409, "ResourceConflictException", "{\"Type\": \"User\", \"message\": \"Alias already exists\"}");
        assertThatThrownBy(() -> ours.createAlias(FakeLambda.INGEST, "stream-s1", "d"))
                .isInstanceOf(LambdaApi.ConflictException.class);
        reply(400, "InvalidParameterValueException", "{\"Type\": \"User\", \"message\": \"bad topic\"}");
        assertThatThrownBy(() -> ours.createEventSourceMapping(JSON.createObjectNode()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("Lambda CreateEventSourceMapping failed (HTTP 400, InvalidParameterValueException): "
                        + "bad topic");
    }

    @Test
    void throttlingIsTriedAgain() {
        reply(429, "TooManyRequestsException", "{\"message\": \"Rate exceeded\"}");
        reply(502, null, "");
        reply(202, null, "{\"UUID\": \"u-2\"}");
        assertThat(ours.createEventSourceMapping(JSON.createObjectNode().put("FunctionName", "f"))).isEqualTo("u-2");
        assertThat(recorded).hasSize(3).extracting(Recorded::body).containsOnly("{\"FunctionName\":\"f\"}");
    }

    /** The last two requests, the SDK's and ours, are the same request; returns ours. */
    private Recorded assertSameAsTheSdk() {
        assertThat(recorded).hasSize(2);
        Recorded theSdks = recorded.get(0);
        Recorded mine = recorded.get(1);
        assertThat(mine.method()).isEqualTo(theSdks.method());
        assertThat(mine.path()).isEqualTo(theSdks.path());
        assertThat(json(mine.body())).isEqualTo(json(theSdks.body()));
        Matcher sdkAuth = CREDENTIAL.matcher(theSdks.authorization());
        Matcher myAuth = CREDENTIAL.matcher(mine.authorization());
        assertThat(sdkAuth.find()).as(theSdks.authorization()).isTrue();
        assertThat(myAuth.find()).as(mine.authorization()).isTrue();
        assertThat(myAuth.group(1)).isEqualTo(sdkAuth.group(1)).contains("/eu-west-1/lambda/aws4_request");
        // The SDK signs a few headers of its own (user agent, invocation id); ours must be among its.
        assertThat(List.of(sdkAuth.group(2).split(";"))).containsAll(List.of(myAuth.group(2).split(";")));
        assertThat(List.of(myAuth.group(2).split(";"))).contains("host", "x-amz-date");
        recorded.clear();
        return mine;
    }

    private void reply(int status, String errorType, String body) {
        synchronized (replies) {
            replies.add(new Reply(status, errorType, body));
        }
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
            recorded.add(new Recorded(exchange.getRequestMethod(), exchange.getRequestURI().getRawPath(), body,
                    String.valueOf(exchange.getRequestHeaders().getFirst("Authorization"))));
            Reply reply;
            synchronized (replies) {
                reply = replies.poll();
            }
            if (reply == null) {
                reply = new Reply(500, "ServiceException", "{\"message\": \"no reply queued\"}");
            }
            if (reply.errorType() != null) {
                exchange.getResponseHeaders().add("x-amzn-ErrorType", reply.errorType());
            }
            byte[] out = reply.body().getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            exchange.sendResponseHeaders(reply.status(), out.length == 0 ? -1 : out.length);
            if (out.length > 0) {
                try (OutputStream o = exchange.getResponseBody()) {
                    o.write(out);
                }
            }
        }
    }

    private static JsonNode json(String body) {
        try {
            return body.isEmpty() ? JSON.nullNode() : JSON.readTree(body);
        } catch (IOException e) {
            throw new AssertionError(body, e);
        }
    }

    private static PipelineSpec spec() {
        return new PipelineSpec("s1", "main.fraud.tx", "s3://w/main/fraud/tx", new Subscription.Topics(List.of("t")),
                Map.of("bootstrap.servers", "b1:9092"), null, null, Instant.parse("2026-11-30T08:00:00Z"));
    }
}
