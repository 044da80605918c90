package io.tributary.lambda.mappings;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The AWS Lambda and Secrets Manager control planes over HTTP, for a function running as a process (the integration
 * tests): the calls IngestMappings makes (aliases and event source mappings in Lambda's REST-JSON protocol, secrets in
 * Secrets Manager's JSON 1.1), kept in memory. The function's AWS SDK clients reach it through the SDK's own endpoint
 * settings ({@code AWS_ENDPOINT_URL_LAMBDA}, {@code AWS_ENDPOINT_URL_SECRETS_MANAGER}), so its production code runs
 * unchanged. Only control-plane APIs are faked (they cannot run here); {@link FakeAwsControlPlane} is the in-JVM
 * counterpart for {@code @QuarkusTest}. A deleted mapping is gone at once.
 */
public final class FakeAwsEndpoints implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String FUNCTIONS = "/2015-03-31/functions/";
    private static final String MAPPINGS = "/2015-03-31/event-source-mappings/";

    public final Set<String> aliases = ConcurrentHashMap.newKeySet();
    /** Mapping UUID to the CreateEventSourceMapping request body. */
    public final Map<String, JsonNode> mappings = new ConcurrentHashMap<>();
    public final List<String> deletedMappings = new CopyOnWriteArrayList<>();
    public final List<String> deletedAliases = new CopyOnWriteArrayList<>();
    private final HttpServer server;
    private final io.tributary.lambda.DeploymentSecretsEndpoint deploymentSecrets;

    private FakeAwsEndpoints(HttpServer server, io.tributary.lambda.DeploymentSecretsEndpoint deploymentSecrets) {
        this.server = server;
        this.deploymentSecrets = deploymentSecrets;
        server.createContext("/", this::handle);
        server.start();
    }

    public static FakeAwsEndpoints start() {
        return start(null);
    }

    /** @param deploymentSecrets answers the function's reads of its deployment secrets (PackagedFunction's) */
    public static FakeAwsEndpoints start(io.tributary.lambda.DeploymentSecretsEndpoint deploymentSecrets) {
        try {
            return new FakeAwsEndpoints(HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0),
                    deploymentSecrets);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The settings a deployment passes (terraform/functions.tf) and the SDK's endpoints pointing here. */
    public Map<String, String> settings() {
        String endpoint = "http://127.0.0.1:" + server.getAddress().getPort();
        Map<String, String> s = new LinkedHashMap<>();
        s.put("AWS_ENDPOINT_URL_LAMBDA", endpoint);
        s.put("AWS_ENDPOINT_URL_SECRETS_MANAGER", endpoint);
        s.put("AWS_REGION", "eu-west-1");
        s.put("AWS_ACCESS_KEY_ID", "it-access-key");
        s.put("AWS_SECRET_ACCESS_KEY", "it-secret-key");
        s.put("tributary.aws.ingest-function-arn", FakeLambda.INGEST);
        s.put("tributary.aws.ingest-batch-size", "10000");
        s.put("tributary.aws.ingest-max-batching-window-seconds", "1");
        s.put("tributary.aws.kafka-secret-prefix", "tributary/kafka/");
        s.put("tributary.aws.kafka-secrets-kms-key-arn", "arn:aws:kms:eu-west-1:123456789012:key/k");
        s.put("tributary.aws.kafka-subnet-ids", "subnet-a,subnet-b");
        s.put("tributary.aws.kafka-security-group-id", "sg-f");
        return s;
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            String method = exchange.getRequestMethod();
            String path = URLDecoder.decode(exchange.getRequestURI().getRawPath(), StandardCharsets.UTF_8);
            byte[] body = exchange.getRequestBody().readAllBytes();
            String target = exchange.getRequestHeaders().getFirst("X-Amz-Target");
            if (target != null && target.startsWith("secretsmanager.") && deploymentSecrets != null
                    && deploymentSecrets.handle(exchange, target, body)) {
                return;
            }
            if (target != null && target.startsWith("secretsmanager.")) {
                // No stream of these tests has SASL credentials: every other secret is absent.
                error(exchange, 400, "ResourceNotFoundException", "Secrets Manager can't find the specified secret.");
            } else if (method.equals("POST") && path.startsWith(FUNCTIONS) && path.endsWith("/aliases")) {
                String name = JSON.readTree(body).path("Name").asText();
                String function = path.substring(FUNCTIONS.length(), path.length() - "/aliases".length());
                aliases.add(name);
                reply(exchange, 201, JSON.createObjectNode().put("Name", name).put("AliasArn", function + ":" + name)
                        .put("FunctionVersion", "$LATEST").toString());
            } else if (method.equals("DELETE") && path.startsWith(FUNCTIONS) && path.contains("/aliases/")) {
                String name = path.substring(path.lastIndexOf('/') + 1);
                if (aliases.remove(name)) {
                    deletedAliases.add(name);
                    reply(exchange, 204, null);
                } else {
                    error(exchange, 404, "ResourceNotFoundException", "Alias not found: " + name);
                }
            } else if (method.equals("POST") && (path + "/").startsWith(MAPPINGS)) {
                String uuid = "uuid-" + (mappings.size() + deletedMappings.size() + 1);
                mappings.put(uuid, JSON.readTree(body));
                reply(exchange, 202, JSON.createObjectNode().put("UUID", uuid).put("State", "Creating").toString());
            } else if (path.startsWith(MAPPINGS) && path.length() > MAPPINGS.length()) {
                String uuid = path.substring(MAPPINGS.length());
                if (!mappings.containsKey(uuid)) {
                    error(exchange, 404, "ResourceNotFoundException", "The resource you requested does not exist.");
                } else if (method.equals("DELETE")) {
                    mappings.remove(uuid);
                    deletedMappings.add(uuid);
                    reply(exchange, 202, JSON.createObjectNode().put("UUID", uuid).put("State", "Deleting").toString());
                } else {
                    reply(exchange, 200, JSON.createObjectNode().put("UUID", uuid).put("State", "Enabled").toString());
                }
            } else {
                error(exchange, 400, "InvalidParameterValueException", "not faked: " + method + " " + path);
            }
        }
    }

    private static void error(HttpExchange exchange, int status, String type, String message) throws IOException {
        exchange.getResponseHeaders().add("x-amzn-ErrorType", type);
        reply(exchange, status, JSON.createObjectNode().put("__type", type).put("Type", "User").put("message", message)
                .toString());
    }

    private static void reply(HttpExchange exchange, int status, String json) throws IOException {
        byte[] body = json == null ? new byte[0] : json.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().add("Content-Type", "application/json");
        exchange.sendResponseHeaders(status, body.length == 0 ? -1 : body.length);
        if (body.length > 0) {
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        }
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
