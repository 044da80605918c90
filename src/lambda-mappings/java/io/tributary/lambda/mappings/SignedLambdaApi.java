package io.tributary.lambda.mappings;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.http.ContentStreamProvider;
import software.amazon.awssdk.http.HttpExecuteRequest;
import software.amazon.awssdk.http.HttpExecuteResponse;
import software.amazon.awssdk.http.SdkHttpClient;
import software.amazon.awssdk.http.SdkHttpFullRequest;
import software.amazon.awssdk.http.SdkHttpMethod;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.http.SdkHttpResponse;
import software.amazon.awssdk.http.auth.aws.signer.AwsV4HttpSigner;
import software.amazon.awssdk.http.auth.spi.signer.SignedRequest;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.PartitionMetadata;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.regions.providers.DefaultAwsRegionProviderChain;
import software.amazon.awssdk.utils.IoUtils;
import software.amazon.awssdk.utils.SdkAutoCloseable;
import software.amazon.awssdk.utils.http.SdkHttpUtils;

/**
 * Lambda's REST-JSON API (version 2015-03-31) for the operations of {@link LambdaApi}, signed with SigV4 by the AWS
 * SDK's own signer, with the SDK's credential and region chains and its URL-connection HTTP client: what the SDK's
 * {@code LambdaClient} does for these calls, without its model of the whole API. The endpoint follows the SDK's
 * settings ({@code aws.endpointUrlLambda} / {@code AWS_ENDPOINT_URL_LAMBDA}, then {@code aws.endpointUrl} /
 * {@code AWS_ENDPOINT_URL}), else the region's public endpoint. Throttling, 5xx answers and I/O failures are tried
 * again (three attempts in all, as the SDK's standard retry mode), with jittered exponential back-off.
 *
 * <p>{@code LambdaApiWireTest} checks that each call sends what the SDK's {@code LambdaClient} sends: method, path,
 * JSON body and signing scope.
 */
final class SignedLambdaApi implements LambdaApi {
    static final String API = "/2015-03-31";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int ATTEMPTS = 3;

    private final SdkHttpClient http;
    private final AwsCredentialsProvider credentials;
    private final AwsV4HttpSigner signer = AwsV4HttpSigner.create();
    private final String region;
    private final URI endpoint;

    SignedLambdaApi(SdkHttpClient http, AwsCredentialsProvider credentials, String region, URI endpoint) {
        this.http = http;
        this.credentials = credentials;
        this.region = region;
        this.endpoint = endpoint;
    }

    /** Region, credentials and endpoint from the Lambda environment, as the SDK's clients find them. */
    static SignedLambdaApi fromEnvironment() {
        String region = new DefaultAwsRegionProviderChain().getRegion().id();
        return new SignedLambdaApi(UrlConnectionHttpClient.create(), DefaultCredentialsProvider.builder().build(),
                region, endpoint(region));
    }

    static URI endpoint(String region) {
        for (String configured : new String[] {System.getProperty("aws.endpointUrlLambda"),
                System.getenv("AWS_ENDPOINT_URL_LAMBDA"), System.getProperty("aws.endpointUrl"),
                System.getenv("AWS_ENDPOINT_URL")}) {
            if (configured != null && !configured.isBlank()) {
                return URI.create(configured.strip());
            }
        }
        return URI.create("https://lambda." + region + "." + PartitionMetadata.of(Region.of(region)).dnsSuffix());
    }

    @Override
    public void createAlias(String functionArn, String name, String description) {
        ObjectNode body = JSON.createObjectNode().put("Name", name).put("FunctionVersion", "$LATEST")
                .put("Description", description);
        call("CreateAlias", SdkHttpMethod.POST, "/functions/" + SdkHttpUtils.urlEncode(functionArn) + "/aliases",
                body);
    }

    @Override
    public void deleteAlias(String functionArn, String name) {
        call("DeleteAlias", SdkHttpMethod.DELETE, "/functions/" + SdkHttpUtils.urlEncode(functionArn) + "/aliases/"
                + SdkHttpUtils.urlEncode(name), null);
    }

    @Override
    public String createEventSourceMapping(ObjectNode request) {
        JsonNode created = call("CreateEventSourceMapping", SdkHttpMethod.POST, "/event-source-mappings", request);
        String uuid = created == null ? null : created.path("UUID").asText(null);
        if (uuid == null) {
            throw new IllegalStateException("Lambda CreateEventSourceMapping answered without the mapping's UUID");
        }
        return uuid;
    }

    @Override
    public void deleteEventSourceMapping(String uuid) {
        call("DeleteEventSourceMapping", SdkHttpMethod.DELETE, mapping(uuid), null);
    }

    @Override
    public boolean eventSourceMappingExists(String uuid) {
        try {
            call("GetEventSourceMapping", SdkHttpMethod.GET, mapping(uuid), null);
            return true;
        } catch (NotFoundException gone) {
            return false;
        }
    }

    @Override
    public void close() {
        http.close();
        if (credentials instanceof SdkAutoCloseable closeable) {
            closeable.close();
        }
    }

    private static String mapping(String uuid) {
        return "/event-source-mappings/" + SdkHttpUtils.urlEncode(uuid);
    }

    /** The answer's JSON (null when it has no body); throws {@link NotFoundException}, {@link ConflictException}. */
    private JsonNode call(String operation, SdkHttpMethod method, String path, ObjectNode body) {
        byte[] payload;
        try {
            payload = body == null ? null : JSON.writeValueAsBytes(body);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        String basePath = endpoint.getRawPath() == null ? "" : endpoint.getRawPath().replaceAll("/+$", "");
        SdkHttpFullRequest.Builder request = SdkHttpFullRequest.builder().method(method).uri(endpoint)
                .encodedPath(basePath + API + path);
        if (payload != null) {
            request.putHeader("Content-Type", "application/json")
                    .putHeader("Content-Length", Integer.toString(payload.length));
        }
        SdkHttpRequest unsigned = request.build();
        for (int attempt = 1; ; attempt++) {
            Answer answer;
            try {
                answer = send(unsigned, payload);
            } catch (IOException e) {
                if (attempt < ATTEMPTS) {
                    backOff(attempt);
                    continue;
                }
                throw new UncheckedIOException("Lambda " + operation + " failed: " + e.getMessage(), e);
            }
            if (answer.status() / 100 == 2) {
                return answer.body().length == 0 ? null : readTree(answer.body());
            }
            String type = answer.errorType();
            if (attempt < ATTEMPTS && (answer.status() == 429 || answer.status() >= 500
                    || type.equals("TooManyRequestsException") || type.equals("ThrottlingException"))) {
                backOff(attempt);
                continue;
            }
            String message = "Lambda " + operation + " failed (HTTP " + answer.status()
                    + (type.isEmpty() ? "" : ", " + type) + "): " + answer.message();
            if (type.equals("ResourceNotFoundException") || (type.isEmpty() && answer.status() == 404)) {
                throw new NotFoundException(message);
            }
            if (type.equals("ResourceConflictException")) {
                throw new ConflictException(message);
            }
            throw new IllegalStateException(message);
        }
    }

    private Answer send(SdkHttpRequest unsigned, byte[] payload) throws IOException {
        SignedRequest signed = signer.sign(r -> r.identity(credentials.resolveCredentials())
                .request(unsigned)
                .payload(payload == null ? null : ContentStreamProvider.fromByteArray(payload))
                .putProperty(AwsV4HttpSigner.SERVICE_SIGNING_NAME, "lambda")
                .putProperty(AwsV4HttpSigner.REGION_NAME, region));
        HttpExecuteResponse response = http.prepareRequest(HttpExecuteRequest.builder()
                .request(signed.request())
                .contentStreamProvider(signed.payload().orElse(null))
                .build()).call();
        byte[] body = new byte[0];
        Optional<? extends InputStream> stream = response.responseBody();
        if (stream.isPresent()) {
            try (InputStream in = stream.get()) {
                body = IoUtils.toByteArray(in);
            }
        }
        return new Answer(response.httpResponse(), body);
    }

    private static JsonNode readTree(byte[] body) {
        try {
            return JSON.readTree(body);
        } catch (IOException e) {
            throw new IllegalStateException("Lambda answered with a body that is not JSON", e);
        }
    }

    private static void backOff(int attempt) {
        long ceiling = 100L << attempt;
        try {
            Thread.sleep(ThreadLocalRandom.current().nextLong(ceiling / 2, ceiling + 1));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while retrying a Lambda call", e);
        }
    }

    /** A Lambda answer; errors name their type in {@code X-Amzn-ErrorType} (else the body's {@code __type}). */
    private record Answer(SdkHttpResponse response, byte[] body) {
        int status() {
            return response.statusCode();
        }

        String errorType() {
            String type = response.firstMatchingHeader("x-amzn-ErrorType").orElse(null);
            if (type == null) {
                type = json().path("__type").asText("");
            }
            type = type.contains(":") ? type.substring(0, type.indexOf(':')) : type;
            return type.contains("#") ? type.substring(type.indexOf('#') + 1) : type;
        }

        String message() {
            JsonNode json = json();
            String message = json.path("message").asText(json.path("Message").asText(""));
            return message.isEmpty() ? "no message" : message;
        }

        private JsonNode json() {
            try {
                JsonNode json = body.length == 0 ? null : JSON.readTree(body);
                return json == null ? JSON.createObjectNode() : json;
            } catch (IOException e) {
                return JSON.createObjectNode();
            }
        }
    }
}
