import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntFunction;

/**
 * The API benchmark's client (run by run.sh with `java ApiBench.java`): registers streams, then drives GET and list
 * requests at a fixed rate on loopback and prints latency percentiles. Latency is measured from each request's
 * scheduled send time, not from when it was actually sent, so a stalled server cannot hide queueing (as wrk2 does).
 */
public final class ApiBench {
    static final String STREAMS = "/api/2.0/feature-engineering/streams";

    final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .executor(Executors.newFixedThreadPool(8)).connectTimeout(Duration.ofSeconds(5)).build();
    final String base;
    final String token;

    ApiBench(String base, String token) {
        this.base = base;
        this.token = token;
    }

    public static void main(String[] args) throws Exception {
        // The HTTP client's pool threads would keep a failed run's JVM (and run.sh's server) alive: exit explicitly.
        try {
            bench(args);
        } catch (Throwable e) {
            e.printStackTrace();
            System.exit(1);
        }
        System.exit(0);
    }

    static void bench(String[] args) throws Exception {
        String base = args[0];
        String token = args[1];
        int streams = Integer.parseInt(args[2]);
        String bootstrap = args[3];
        int rate = Integer.parseInt(args[4]);
        int seconds = Integer.parseInt(args[5]);
        ApiBench bench = new ApiBench(base, token);
        bench.register(streams, bootstrap);

        int schemas = Math.max(1, streams / 100);
        Random random = new Random(42);
        System.out.println("warm-up: " + seconds + " s of GET and list");
        bench.run(rate, seconds, i -> i % 2 == 0 ? streamPath(random.nextInt(streams)) : listPath(random, schemas));

        Result baseline = bench.run(rate, seconds, i -> "/q/health/ready");
        Result get = bench.run(rate, seconds, i -> streamPath(random.nextInt(streams)));
        Result list = bench.run(rate, seconds, i -> listPath(random, schemas));
        System.out.println();
        System.out.printf(Locale.ROOT, "%d streams registered; %d requests/s for %d s per run, loopback%n", streams,
                rate, seconds);
        System.out.printf(Locale.ROOT, "%-34s %9s %9s %9s %8s %8s%n", "request", "p50 ms", "p99 ms", "max ms", "errors",
                "p99/base");
        baseline.print("GET /q/health/ready (baseline)", baseline);
        get.print("GET stream", baseline);
        list.print("list streams (max_results=50)", baseline);
        System.out.printf(Locale.ROOT, "goals: GET p99 <= 10 ms: %s; list p99 <= 25 ms: %s%n",
                get.p(0.99) <= 10 ? "met" : "NOT met", list.p(0.99) <= 25 ? "met" : "NOT met");
    }

    static String streamPath(int i) {
        return STREAMS + "/bench.s" + (i / 100) + ".stream" + i;
    }

    static String listPath(Random random, int schemas) {
        return STREAMS + "?catalog_name=bench&schema_name=s" + random.nextInt(schemas) + "&max_results=50";
    }

    void register(int streams, String bootstrap) throws Exception {
        try (var admin = org.apache.kafka.clients.admin.Admin.create(java.util.Map.of("bootstrap.servers", bootstrap))) {
            if (!admin.listTopics().names().get().contains("bench-topic")) {
                admin.createTopics(List.of(new org.apache.kafka.clients.admin.NewTopic("bench-topic", 3, (short) 1)))
                        .all().get();
            }
        }
        if (send("GET", streamPath(streams - 1), null) == 200) {
            System.out.printf(Locale.ROOT, "%d streams already registered (BENCH_DATA reused)%n", streams);
            return;
        }
        send("POST", "/api/2.0/connections", "{\"name\": \"bench-kafka\", \"connection_type\": \"KAFKA\", "
                + "\"options\": {\"bootstrap_servers\": \"" + bootstrap + "\"}}");
        long start = System.nanoTime();
        AtomicInteger done = new AtomicInteger();
        AtomicInteger failed = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(4);
        for (int i = 0; i < streams; i++) {
            int n = i;
            pool.submit(() -> {
                String name = "bench.s" + (n / 100) + ".stream" + n;
                String body = "{\"name\": \"" + name + "\", \"source_config\": {\"kafka_stream_config\": "
                        + "{\"subscription_mode\": {\"subscribe\": \"bench-topic\"}}}, \"connection_config\": "
                        + "{\"uc_connection_name\": \"bench-kafka\"}, \"schema_config\": {\"direct_schemas\": "
                        + "{\"payload_schema\": {\"json_schema\": \"{\\\"type\\\": \\\"object\\\", \\\"properties\\\": "
                        + "{\\\"id\\\": {\\\"type\\\": \\\"string\\\"}, \\\"amount\\\": {\\\"type\\\": \\\"number\\\"}}}\"}}}, "
                        + "\"ingestion_config\": {\"ingestion_destination\": {\"delta_table_name\": \"" + name
                        + "_ingestion\"}, \"deduplication_columns\": [\"value.id\"]}}";
                try {
                    int status = send("POST", STREAMS, body);
                    if (status != 200 && status != 409) {
                        failed.incrementAndGet();
                    }
                } catch (Exception e) {
                    failed.incrementAndGet();
                }
                int d = done.incrementAndGet();
                if (d % 1000 == 0) {
                    System.out.printf(Locale.ROOT, "registered %d streams (%.0f/s)%n", d,
                            d / ((System.nanoTime() - start) / 1e9));
                }
            });
        }
        pool.shutdown();
        pool.awaitTermination(2, TimeUnit.HOURS);
        System.out.printf(Locale.ROOT, "registered %d streams in %.1f s, %d failed%n", streams,
                (System.nanoTime() - start) / 1e9, failed.get());
    }

    int send(String method, String path, String body) throws IOException, InterruptedException {
        HttpResponse<String> r = http.send(request(method, path, body), HttpResponse.BodyHandlers.ofString());
        return r.statusCode();
    }

    HttpRequest request(String method, String path, String body) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(30))
                .header("Authorization", "Bearer " + token);
        if (body != null) {
            b.header("Content-Type", "application/json").method(method, HttpRequest.BodyPublishers.ofString(body));
        } else {
            b.method(method, HttpRequest.BodyPublishers.noBody());
        }
        return b.build();
    }

    /** Sends {@code rate} requests per second for {@code seconds}, each at its scheduled time. */
    Result run(int rate, int seconds, IntFunction<String> paths) throws Exception {
        int total = rate * seconds;
        long interval = 1_000_000_000L / rate;
        long[] latencies = new long[total];
        AtomicInteger errors = new AtomicInteger();
        Semaphore inFlight = new Semaphore(512);
        List<CompletableFuture<?>> futures = new ArrayList<>(total);
        long start = System.nanoTime() + 50_000_000L;
        for (int i = 0; i < total; i++) {
            long scheduled = start + i * interval;
            long wait = scheduled - System.nanoTime();
            if (wait > 0) {
                TimeUnit.NANOSECONDS.sleep(wait);
            }
            inFlight.acquire();
            int index = i;
            futures.add(http.sendAsync(request("GET", paths.apply(i), null), HttpResponse.BodyHandlers.ofString())
                    .whenComplete((r, e) -> {
                        latencies[index] = System.nanoTime() - scheduled;
                        if (e != null || r.statusCode() != 200) {
                            errors.incrementAndGet();
                        }
                        inFlight.release();
                    }));
        }
        CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new)).exceptionally(e -> null).join();
        Arrays.sort(latencies);
        return new Result(latencies, errors.get());
    }

    record Result(long[] sortedNanos, int errors) {
        double p(double q) {
            int i = (int) Math.min(sortedNanos.length - 1, Math.ceil(q * sortedNanos.length) - 1);
            return sortedNanos[Math.max(0, i)] / 1e6;
        }

        void print(String label, Result baseline) {
            System.out.printf(Locale.ROOT, "%-34s %9.2f %9.2f %9.2f %8d %8.1f%n", label, p(0.5), p(0.99),
                    sortedNanos[sortedNanos.length - 1] / 1e6, errors, p(0.99) / baseline.p(0.99));
        }
    }
}
