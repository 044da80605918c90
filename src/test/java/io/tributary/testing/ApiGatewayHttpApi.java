package io.tributary.testing;

import static io.restassured.RestAssured.given;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.restassured.builder.ResponseBuilder;
import io.restassured.filter.Filter;
import io.restassured.filter.FilterContext;
import io.restassured.http.Header;
import io.restassured.http.Headers;
import io.restassured.response.Response;
import io.restassured.specification.FilterableRequestSpecification;
import io.restassured.specification.FilterableResponseSpecification;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The API test suite's transport in the stream-api function build (SPEC 7): every RestAssured request becomes the API
 * Gateway HTTP API event (payload format 2.0) that the deployed route {@code ANY /api/{proxy+}} would send, posted to
 * Quarkus's mock event server ({@code /_lambda_}), and the function's response becomes the HTTP response API Gateway
 * would return. The same test classes therefore run unchanged against the all-in-one server and the function.
 *
 * <p>This filter plays API Gateway's JWT authorizer: a bearer token the test deployment knows ({@code
 * tributary.auth.tokens}, the server's tokens) has been verified, so the event carries the principal as the JWT's
 * {@code sub} claim in {@code requestContext.authorizer.jwt.claims}. Any other token, or none, arrives without an
 * authorizer context: the real gateway would already answer 401 itself, and here the function shows that it refuses
 * such callers on its own with the SPEC error body.
 */
public final class ApiGatewayHttpApi implements Filter {
    static final String ROUTE_KEY = "ANY /api/{proxy+}";

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final DateTimeFormatter REQUEST_TIME =
            DateTimeFormatter.ofPattern("dd/MMM/yyyy:HH:mm:ss Z", Locale.ROOT).withZone(ZoneOffset.UTC);
    private static final AtomicLong EVENTS = new AtomicLong();

    private final Map<String, String> subjectsByToken;

    /** @param tokens the deployment's principals as {@code tributary.auth.tokens} spells them: {@code alice=tokA,...} */
    public ApiGatewayHttpApi(String tokens) {
        Map<String, String> subjects = new LinkedHashMap<>();
        for (String pair : tokens.split(",")) {
            String[] nameToken = pair.strip().split("=", 2);
            if (nameToken.length == 2) {
                subjects.put(nameToken[1].strip(), nameToken[0].strip());
            }
        }
        this.subjectsByToken = Map.copyOf(subjects);
    }

    /** How many events this JVM posted: lets the function's tests prove that requests went through the event path. */
    public static long eventsPosted() {
        return EVENTS.get();
    }

    @Override
    public Response filter(FilterableRequestSpecification request, FilterableResponseSpecification responseSpec,
            FilterContext context) {
        ObjectNode event = event(request);
        // The event server's own port; posting without this filter (a plain given()) keeps it from applying twice.
        Response raw = given().port(request.getPort()).contentType("application/json").body(event.toString())
                .post("/_lambda_");
        EVENTS.incrementAndGet();
        return toHttpResponse(raw);
    }

    ObjectNode event(FilterableRequestSpecification request) {
        URI uri = URI.create(request.getURI());
        String path = uri.getRawPath();
        String rawQuery = uri.getRawQuery() == null ? "" : uri.getRawQuery();
        ObjectNode event = JSON.createObjectNode();
        event.put("version", "2.0");
        event.put("routeKey", ROUTE_KEY);
        event.put("rawPath", path);
        event.put("rawQueryString", rawQuery);

        ObjectNode headers = event.putObject("headers");
        String authorization = null;
        for (Header h : request.getHeaders()) {
            String name = h.getName().toLowerCase(Locale.ROOT);
            if (name.equals("authorization")) {
                authorization = h.getValue();
            }
            // API Gateway joins repeated headers with commas and lower-cases their names.
            headers.put(name, headers.has(name) ? headers.get(name).asText() + "," + h.getValue() : h.getValue());
        }
        headers.put("host", "api.example.com");
        headers.put("x-forwarded-proto", "https");
        if (request.getContentType() != null) {
            headers.put("content-type", request.getContentType());
        }
        if (!rawQuery.isEmpty()) {
            ObjectNode params = event.putObject("queryStringParameters");
            for (String pair : rawQuery.split("&")) {
                String[] kv = pair.split("=", 2);
                String key = decode(kv[0]);
                String value = kv.length == 2 ? decode(kv[1]) : "";
                params.put(key, params.has(key) ? params.get(key).asText() + "," + value : value);
            }
        }
        if (path.startsWith("/api/")) {
            event.putObject("pathParameters").put("proxy", path.substring("/api/".length()));
        }

        Instant now = Instant.now();
        ObjectNode context = event.putObject("requestContext");
        context.put("accountId", "123456789012");
        context.put("apiId", "tributary");
        context.put("domainName", "api.example.com");
        context.put("domainPrefix", "api");
        context.put("requestId", UUID.randomUUID().toString());
        context.put("routeKey", ROUTE_KEY);
        context.put("stage", "$default");
        context.put("time", REQUEST_TIME.format(now));
        context.put("timeEpoch", now.toEpochMilli());
        context.putObject("http").put("method", request.getMethod()).put("path", path).put("protocol", "HTTP/1.1")
                .put("sourceIp", "127.0.0.1").put("userAgent", "tributary-tests");
        String subject = subject(authorization);
        if (subject != null) {
            ObjectNode jwt = context.putObject("authorizer").putObject("jwt");
            jwt.putObject("claims").put("sub", subject).put("iss", "https://issuer.example.com/")
                    .put("aud", "tributary");
            jwt.putArray("scopes");
        }

        byte[] body = body(request.getBody());
        // API Gateway passes text bodies as they are and anything else (a binary push, SPEC §11) base64-encoded.
        String type = request.getContentType() == null ? "" : request.getContentType();
        boolean text = type.isEmpty() || type.contains("json") || type.startsWith("text/")
                || type.contains("x-www-form-urlencoded");
        if (body != null) {
            event.put("body", text ? new String(body, StandardCharsets.UTF_8) : Base64.getEncoder().encodeToString(body));
        }
        event.put("isBase64Encoded", body != null && !text);
        return event;
    }

    private String subject(String authorization) {
        if (authorization == null || !authorization.regionMatches(true, 0, "Bearer ", 0, 7)) {
            return null;
        }
        return subjectsByToken.get(authorization.substring(7).strip());
    }

    /**
     * The function's result as API Gateway returns it: a Lambda error (the event server answers 500) is API
     * Gateway's own 500 "Internal Server Error"; otherwise the status, headers and body of the payload 2.0 response.
     */
    private static Response toHttpResponse(Response raw) {
        List<Header> headers = new ArrayList<>();
        int status;
        byte[] body;
        String contentType;
        if (raw.statusCode() != 200) {
            status = 500;
            contentType = "application/json";
            body = "{\"message\":\"Internal Server Error\"}".getBytes(StandardCharsets.UTF_8);
        } else {
            JsonNode result = readTree(raw.asByteArray());
            status = result.path("statusCode").asInt();
            result.path("headers").properties().forEach(e -> headers.add(new Header(e.getKey(), e.getValue().asText())));
            result.path("multiValueHeaders").properties().forEach(e ->
                    e.getValue().forEach(v -> headers.add(new Header(e.getKey(), v.asText()))));
            result.path("cookies").forEach(c -> headers.add(new Header("set-cookie", c.asText())));
            String text = result.path("body").isNull() ? "" : result.path("body").asText("");
            body = result.path("isBase64Encoded").asBoolean() ? Base64.getDecoder().decode(text)
                    : text.getBytes(StandardCharsets.UTF_8);
            contentType = headers.stream().filter(h -> h.getName().equalsIgnoreCase("content-type"))
                    .map(Header::getValue).findFirst().orElse("");
        }
        return new ResponseBuilder().clone(raw)
                .setStatusCode(status)
                .setStatusLine("HTTP/1.1 " + status)
                .setHeaders(new Headers(headers))
                .setContentType(contentType)
                .setBody(body)
                .build();
    }

    private static byte[] body(Object body) {
        if (body == null) {
            return null;
        }
        if (body instanceof byte[] bytes) {
            return bytes;
        }
        return body.toString().getBytes(StandardCharsets.UTF_8);
    }

    private static JsonNode readTree(byte[] json) {
        try {
            return JSON.readTree(json);
        } catch (java.io.IOException e) {
            throw new IllegalStateException("the function's response is not an API Gateway payload 2.0 response", e);
        }
    }

    private static String decode(String s) {
        return URLDecoder.decode(s, StandardCharsets.UTF_8);
    }
}
