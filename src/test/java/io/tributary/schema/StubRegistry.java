package io.tributary.schema;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A loopback stand-in for the Confluent registry REST API, only for what a real registry cannot be made to do on cue
 * (fail transiently, answer slowly) and to see the requests the client sends. The live-registry test runs against
 * Apicurio.
 */
public final class StubRegistry implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();

    private record Registered(int id, String type, String text, boolean references) {}

    private final HttpServer server;
    private final Map<String, List<Registered>> subjects = new ConcurrentHashMap<>();
    private final Map<Integer, Registered> ids = new ConcurrentHashMap<>();
    private final AtomicInteger nextId = new AtomicInteger(100);
    final List<String> requests = new CopyOnWriteArrayList<>();
    final List<String> authorizations = new CopyOnWriteArrayList<>();
    final AtomicInteger failuresToServe = new AtomicInteger();
    volatile int status = 200;
    volatile long delayMillis;
    volatile String requiredAuthorization;

    public StubRegistry() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/", this::handle);
        server.start();
    }

    public String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    public int register(String subject, String type, String text) {
        return register(subject, type, text, false);
    }

    int register(String subject, String type, String text, boolean references) {
        Registered r = new Registered(nextId.getAndIncrement(), type, text, references);
        subjects.computeIfAbsent(subject, s -> new CopyOnWriteArrayList<>()).add(r);
        ids.put(r.id, r);
        return r.id;
    }

    private void handle(HttpExchange exchange) throws IOException {
        String path = exchange.getRequestURI().getRawPath();
        requests.add(path);
        String auth = exchange.getRequestHeaders().getFirst("Authorization");
        authorizations.add(auth == null ? "" : auth);
        try {
            if (delayMillis > 0) {
                Thread.sleep(delayMillis);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (failuresToServe.getAndDecrement() > 0) {
            send(exchange, 503, "{\"error_code\": 50301, \"message\": \"busy\"}");
            return;
        }
        if (requiredAuthorization != null && !requiredAuthorization.equals(auth)) {
            send(exchange, 401, "{\"error_code\": 401, \"message\": \"Unauthorized\"}");
            return;
        }
        if (status != 200) {
            send(exchange, status, "{\"error_code\": " + status + ", \"message\": \"status " + status + "\"}");
            return;
        }
        String[] parts = path.split("/");
        if (parts.length == 4 && parts[1].equals("subjects") && parts[3].equals("versions")) {
            List<Registered> versions = subjects.get(URLDecoder.decode(parts[2], StandardCharsets.UTF_8));
            if (versions == null) {
                send(exchange, 404, "{\"error_code\": 40401, \"message\": \"Subject not found\"}");
                return;
            }
            StringBuilder list = new StringBuilder("[");
            for (int v = 1; v <= versions.size(); v++) {
                list.append(v == 1 ? "" : ",").append(v);
            }
            send(exchange, 200, list.append("]").toString());
            return;
        }
        Registered found = null;
        int version = 0;
        if (parts.length == 5 && parts[1].equals("subjects") && parts[3].equals("versions")) {
            List<Registered> versions = subjects.getOrDefault(URLDecoder.decode(parts[2], StandardCharsets.UTF_8),
                    new ArrayList<>());
            if (!versions.isEmpty()) {
                version = parts[4].equals("latest") ? versions.size() : Integer.parseInt(parts[4]);
                found = version >= 1 && version <= versions.size() ? versions.get(version - 1) : null;
            }
        } else if (parts.length == 4 && parts[1].equals("schemas") && parts[2].equals("ids")) {
            found = ids.get(Integer.parseInt(parts[3]));
        }
        if (found == null) {
            send(exchange, 404, "{\"error_code\": 40401, \"message\": \"Subject or schema not found\"}");
            return;
        }
        ObjectNode body = JSON.createObjectNode();
        body.put("id", found.id);
        if (version > 0) {
            body.put("version", version);
            body.put("subject", parts[2]);
        }
        if (!found.type.equals("AVRO")) {
            body.put("schemaType", found.type);
        }
        body.put("schema", found.text);
        if (found.references) {
            body.putArray("references").addObject().put("name", "other.avsc").put("subject", "other")
                    .put("version", 1);
        }
        send(exchange, 200, JSON.writeValueAsString(body));
    }

    private static void send(HttpExchange exchange, int status, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().add("Content-Type", "application/vnd.schemaregistry.v1+json");
        exchange.sendResponseHeaders(status, bytes.length);
        exchange.getResponseBody().write(bytes);
        exchange.close();
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
