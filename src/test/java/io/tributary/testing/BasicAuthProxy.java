package io.tributary.testing;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Base64;

/**
 * A basic-auth gate on 127.0.0.1 in front of a registry: Apicurio without Keycloak checks no credentials, so the tests
 * of the API key and secret put this proxy in front of it. Requests without the expected Authorization header get a
 * 401, as from Confluent's registry; the others are forwarded (GET and POST) and answered with the registry's answer.
 */
public final class BasicAuthProxy implements AutoCloseable {
    private final HttpServer server;
    private final String upstream;
    private volatile String expected;
    private final HttpClient http = HttpClient.newHttpClient();

    /** @param upstreamUrl any URL of the registry; the proxy serves the same paths on its own origin, {@link #url()} */
    public BasicAuthProxy(String upstreamUrl, String user, String password) throws IOException {
        URI u = URI.create(upstreamUrl);
        this.upstream = u.getScheme() + "://" + u.getHost() + ":" + u.getPort();
        this.expected = "Basic " + Base64.getEncoder().encodeToString((user + ":" + password)
                .getBytes(StandardCharsets.UTF_8));
        this.server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/", this::handle);
        server.start();
    }

    /** From now on only these credentials pass: the registry's credentials were rotated. */
    public void accept(String user, String password) {
        this.expected = "Basic " + Base64.getEncoder().encodeToString((user + ":" + password)
                .getBytes(StandardCharsets.UTF_8));
    }

    public String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            if (!expected.equals(exchange.getRequestHeaders().getFirst("Authorization"))) {
                respond(exchange, 401, "{\"error_code\":401,\"message\":\"Unauthorized\"}");
                return;
            }
            byte[] body = exchange.getRequestBody().readAllBytes();
            HttpRequest.Builder forward = HttpRequest.newBuilder(URI.create(upstream + exchange.getRequestURI()))
                    .method(exchange.getRequestMethod(), body.length == 0 ? HttpRequest.BodyPublishers.noBody()
                            : HttpRequest.BodyPublishers.ofByteArray(body));
            String contentType = exchange.getRequestHeaders().getFirst("Content-Type");
            if (contentType != null) {
                forward.header("Content-Type", contentType);
            }
            HttpResponse<String> answer = http.send(forward.build(), HttpResponse.BodyHandlers.ofString());
            respond(exchange, answer.statusCode(), answer.body());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void respond(HttpExchange exchange, int status, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "application/json");
        exchange.sendResponseHeaders(status, bytes.length == 0 ? -1 : bytes.length);
        if (bytes.length > 0) {
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(bytes);
            }
        }
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
