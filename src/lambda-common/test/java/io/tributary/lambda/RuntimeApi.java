package io.tributary.lambda;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The AWS Lambda Runtime API (version 2018-06-01) as Lambda serves it to a function's runtime, over plain HTTP on
 * 127.0.0.1: {@code GET /2018-06-01/runtime/invocation/next} hands the next event to the poll loop with its request
 * id, deadline and invoked ARN, {@code POST .../invocation/<id>/response} and {@code .../error} complete it, and
 * {@code POST /2018-06-01/runtime/init/error} reports a function that failed to start. A test (or the bench) calls
 * {@link #invoke} like Lambda's invoke: it queues the event and waits for the function's answer.
 *
 * <p>Whatever runtime polls it is the function under test: the packaged function started as a process by
 * {@link PackagedFunction} (for the integration tests and the bench), pointed here by {@code AWS_LAMBDA_RUNTIME_API}
 * as on Lambda. Every poll's client port is recorded, so a test can check which process took its events
 * ({@link PackagedFunction#assertPolledByTheFunction()}). Only the JDK is used.
 */
public final class RuntimeApi implements AutoCloseable {
    private static final String NEXT = "/2018-06-01/runtime/invocation/next";
    private static final String INVOCATION = "/2018-06-01/runtime/invocation/";
    private static final String INIT_ERROR = "/2018-06-01/runtime/init/error";

    /** What the function answered: its result (status 200) or Lambda's error object (status 500), as invoke returns. */
    public record Invocation(int status, String body, long nanos) {
        public Invocation ok() {
            if (status != 200) {
                throw new AssertionError("the function failed: " + body);
            }
            return this;
        }
    }

    private record Pending(String requestId, String invokedArn, byte[] event, CompletableFuture<Invocation> answer,
            long postedAt) {}

    private final HttpServer server;
    private final ExecutorService threads = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "runtime-api");
        t.setDaemon(true);
        return t;
    });
    private final BlockingQueue<Pending> queue = new LinkedBlockingQueue<>();
    private final Map<String, Pending> inFlight = new ConcurrentHashMap<>();
    private final List<Integer> pollerPorts = new CopyOnWriteArrayList<>();
    private final CompletableFuture<String> initError = new CompletableFuture<>();
    private final CompletableFuture<Long> firstPoll = new CompletableFuture<>();
    private volatile int waitingPort;

    private RuntimeApi(HttpServer server) {
        this.server = server;
        server.setExecutor(threads);
        server.createContext("/", this::handle);
        server.start();
    }

    /** Listens on 127.0.0.1 and a free port. */
    public static RuntimeApi start() {
        try {
            return new RuntimeApi(HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** {@code host:port}, the value of {@code AWS_LAMBDA_RUNTIME_API}. */
    public String address() {
        return "127.0.0.1:" + server.getAddress().getPort();
    }

    public int port() {
        return server.getAddress().getPort();
    }

    /** The client ports of every {@code next} poll so far. */
    public List<Integer> pollerPorts() {
        return List.copyOf(pollerPorts);
    }

    /**
     * The client port of the poll now waiting for an event (the runtime asks for the next one as soon as it has
     * answered), waiting up to {@code timeout} for it: that connection is open, so its owner can be looked up.
     */
    public int awaitWaitingPoll(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (waitingPort == 0 || !queue.isEmpty()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("the function did not poll for its next event within " + timeout);
            }
            Thread.sleep(20);
        }
        return waitingPort;
    }

    /** When (System.nanoTime) the runtime first asked for an event; waits for it. */
    public long awaitFirstPoll(Duration timeout) throws Exception {
        return firstPoll.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    /**
     * Invokes the function with {@code event} through {@code invokedArn} (the ARN Lambda puts in
     * {@code Lambda-Runtime-Invoked-Function-Arn}: for the ingest function, the stream's alias) and waits for its
     * answer. {@link Invocation#nanos()} is the time from queueing the event to receiving the answer.
     */
    public Invocation invoke(String invokedArn, String event, Duration timeout) {
        Pending p = new Pending(UUID.randomUUID().toString(), invokedArn, event.getBytes(StandardCharsets.UTF_8),
                new CompletableFuture<>(), System.nanoTime());
        queue.add(p);
        try {
            return p.answer().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            throw new AssertionError("no answer from the function within " + timeout
                    + (initError.isDone() ? "; it reported an init error: " + initError.join() : ""));
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            String path = exchange.getRequestURI().getPath();
            // Quarkus's test setting (quarkus-internal.aws-lambda.test-api) may carry a base path before the API's.
            int api = path.indexOf("/2018-06-01/");
            path = api < 0 ? path : path.substring(api);
            if (path.equals(NEXT) && exchange.getRequestMethod().equals("GET")) {
                next(exchange);
            } else if (path.equals(INIT_ERROR)) {
                initError.complete(new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
                reply(exchange, 202, "{\"status\":\"OK\"}".getBytes(StandardCharsets.UTF_8));
            } else if (path.startsWith(INVOCATION) && exchange.getRequestMethod().equals("POST")) {
                String[] parts = path.substring(INVOCATION.length()).split("/");
                Pending p = parts.length == 2 ? inFlight.remove(parts[0]) : null;
                if (p == null) {
                    reply(exchange, 404, "{\"errorType\":\"InvalidRequestID\"}".getBytes(StandardCharsets.UTF_8));
                    return;
                }
                byte[] body = exchange.getRequestBody().readAllBytes();
                reply(exchange, 202, "{\"status\":\"OK\"}".getBytes(StandardCharsets.UTF_8));
                int status = parts[1].equals("response") ? 200 : 500;
                p.answer().complete(new Invocation(status, new String(body, StandardCharsets.UTF_8),
                        System.nanoTime() - p.postedAt()));
            } else {
                reply(exchange, 404, new byte[0]);
            }
        }
    }

    private void next(HttpExchange exchange) throws IOException {
        pollerPorts.add(exchange.getRemoteAddress().getPort());
        firstPoll.complete(System.nanoTime());
        int port = exchange.getRemoteAddress().getPort();
        Pending p;
        try {
            waitingPort = port;
            p = queue.take();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        } finally {
            waitingPort = 0;
        }
        inFlight.put(p.requestId(), p);
        exchange.getResponseHeaders().add("Lambda-Runtime-Aws-Request-Id", p.requestId());
        exchange.getResponseHeaders().add("Lambda-Runtime-Deadline-Ms",
                Long.toString(System.currentTimeMillis() + 900_000));
        exchange.getResponseHeaders().add("Lambda-Runtime-Invoked-Function-Arn", p.invokedArn());
        exchange.getResponseHeaders().add("Lambda-Runtime-Trace-Id", "Root=1-00000000-000000000000000000000000");
        exchange.getResponseHeaders().add("Content-Type", "application/json");
        reply(exchange, 200, p.event());
    }

    private static void reply(HttpExchange exchange, int status, byte[] body) throws IOException {
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
        threads.shutdownNow();
    }
}
