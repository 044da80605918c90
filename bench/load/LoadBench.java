import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;
import java.net.URI;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The load bench's client (run by run.sh with `java LoadBench.java`): STREAMS streams ingest at once from a producer
 * while the API gets RATE requests/s of mixed reads and writes for SECONDS, each request sent at its scheduled time
 * (latency counts from then, so a stalled server cannot hide queueing). A baseline run of GET /q/health/ready at the
 * same rate comes first. Every request is bounded (count and a 10 s timeout), everything on loopback. At the end each
 * stream must hold exactly the records produced for it.
 */
public final class LoadBench {
    static final String STREAMS = "/api/2.0/feature-engineering/streams";
    /**
     * Vert.x's client on one event loop, with keep-alive: the JDK's HttpClient took half a core of this 2-core machine
     * at 500 requests/s, which the server under test then lacked; this one takes a small part of that.
     */
    final Vertx vertx = Vertx.vertx();
    final HttpClient http;
    final String token;

    LoadBench(String base, String token) {
        URI uri = URI.create(base);
        this.http = vertx.createHttpClient(new HttpClientOptions().setDefaultHost(uri.getHost())
                .setDefaultPort(uri.getPort()).setKeepAlive(true).setConnectTimeout(5000),
                new PoolOptions().setHttp1MaxSize(512));
        this.token = token;
    }

    record Answer(int status, String body) {}

    /** Every request bounded: 10 s from when it is sent to its whole answer. */
    CompletableFuture<Answer> send(Call call) {
        RequestOptions options = new RequestOptions().setMethod(HttpMethod.valueOf(call.method()))
                .setURI(call.path()).setTimeout(10_000).putHeader("Authorization", "Bearer " + token);
        if (call.body() != null) {
            options.putHeader("Content-Type", "application/json");
        }
        return http.request(options)
                .compose(r -> call.body() == null ? r.send() : r.send(Buffer.buffer(call.body())))
                .compose(r -> r.body().map(b -> new Answer(r.statusCode(), b.toString())))
                .toCompletionStage().toCompletableFuture();
    }

    public static void main(String[] args) throws Exception {
        int rc = 0;
        try {
            rc = bench(args);
        } catch (Throwable e) {
            e.printStackTrace();
            rc = 1;
        }
        System.exit(rc);
    }

    static int bench(String[] args) throws Exception {
        LoadBench b = new LoadBench(args[0], args[1]);
        String bootstrap = args[2];
        int streams = Integer.parseInt(args[3]);
        int rate = Integer.parseInt(args[4]);
        int seconds = Integer.parseInt(args[5]);
        int recordsPerSecond = Integer.parseInt(args[6]);
        int warmup = args.length > 7 ? Integer.parseInt(args[7]) : 0;
        String run = Long.toString(System.currentTimeMillis() % 1_000_000, 36);

        try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
            List<NewTopic> topics = new ArrayList<>();
            for (int s = 0; s < streams; s++) {
                topics.add(new NewTopic("load-" + run + "-" + s, 3, (short) 1));
            }
            admin.createTopics(topics).all().get();
        }
        b.ok("POST", "/api/2.0/connections", "{\"name\": \"load-" + run + "\", \"connection_type\": \"KAFKA\", "
                + "\"options\": {\"bootstrap_servers\": \"" + bootstrap + "\"}}");
        for (int s = 0; s < streams; s++) {
            b.ok("POST", STREAMS, streamBody(run, s));
        }
        System.out.printf(Locale.ROOT, "%d streams created, each fed %d records/s%n", streams,
                recordsPerSecond / streams);

        AtomicBoolean producing = new AtomicBoolean(true);
        long[] produced = new long[streams];
        Thread producer = new Thread(() -> produce(bootstrap, run, streams, recordsPerSecond, produced, producing));
        producer.start();
        try {
            Random random = new Random(7);
            if (warmup > 0) {
                // The same traffic, not measured: a JVM that has just started compiles its hot paths for the first
                // tens of seconds, and a load test reads the steady state. The cold figure is the run with 0.
                Map<String, Result> cold = b.mixed(rate, warmup, random, run, streams, false);
                Result all = Result.merge(cold.values());
                System.out.printf(Locale.ROOT, "warm-up: %d s of the same traffic, not counted (p50 %.0f ms, p99 "
                        + "%.0f ms, %d errors)%n", warmup, all.p(0.5), all.p(0.99), all.errors);
            }
            Result baseline = b.run(rate, Math.max(10, seconds / 3), i -> new Call("GET", "/q/health/ready", null));
            Map<String, Result> mixed = b.mixed(rate, seconds, random, run, streams, true);
            System.out.printf(Locale.ROOT, "%n%d requests/s for %d s, mixed reads and writes, while %d streams "
                    + "ingest; loopback%n", rate, seconds, streams);
            System.out.printf(Locale.ROOT, "%-32s %8s %9s %9s %9s %7s %9s%n", "request", "count", "p50 ms", "p99 ms",
                    "max ms", "errors", "p99/base");
            baseline.print("GET /q/health/ready (baseline)", baseline);
            int errors = 0;
            for (var e : mixed.entrySet()) {
                e.getValue().print(e.getKey(), baseline);
                errors += e.getValue().errors;
            }
            Result all = Result.merge(mixed.values());
            all.print("all mixed", baseline);
            System.out.println("errors: " + errors + (errors == 0 ? " (goal met)" : " (goal NOT met)"));
            producing.set(false);
            producer.join();
            return b.verify(run, streams, produced) && errors == 0 ? 0 : 2;
        } finally {
            producing.set(false);
        }
    }

    record Call(String method, String path, String body) {}

    /** GET a stream 50 %, list 20 %, create then delete a connection 10 % each, a grant 10 %. */
    Map<String, Result> mixed(int rate, int seconds, Random random, String run, int streams, boolean report)
            throws Exception {
        Map<String, List<Long>> latencies = new ConcurrentHashMap<>();
        Map<String, AtomicInteger> errors = new ConcurrentHashMap<>();
        AtomicInteger connections = new AtomicInteger();
        String conn = "load-" + run + (report ? "" : "-w");
        int total = rate * seconds;
        long interval = 1_000_000_000L / rate;
        Semaphore inFlight = new Semaphore(512);
        List<CompletableFuture<?>> futures = new ArrayList<>(total);
        long start = System.nanoTime() + 50_000_000L;
        // Mean latency by the second a request was due: shows whether a backlog builds, drains or stays.
        java.util.concurrent.atomic.AtomicLongArray sum = new java.util.concurrent.atomic.AtomicLongArray(seconds);
        java.util.concurrent.atomic.AtomicLongArray count = new java.util.concurrent.atomic.AtomicLongArray(seconds);
        for (int i = 0; i < total; i++) {
            int pick = random.nextInt(10);
            String kind;
            Call call;
            String stream = "load.r" + run + ".stream" + random.nextInt(streams);
            if (pick < 5) {
                kind = "GET stream";
                call = new Call("GET", STREAMS + "/" + stream, null);
            } else if (pick < 7) {
                kind = "list streams";
                call = new Call("GET", STREAMS + "?catalog_name=load&schema_name=r" + run + "&max_results=50", null);
            } else if (pick == 7) {
                kind = "POST connection";
                int n = connections.incrementAndGet();
                call = new Call("POST", "/api/2.0/connections", "{\"name\": \"" + conn + "-c" + n
                        + "\", \"connection_type\": \"KAFKA\", \"options\": {\"bootstrap_servers\": \"127.0.0.1:9\"}}");
            } else if (pick == 8) {
                kind = "DELETE connection";
                int n = Math.max(1, connections.get() - 5);
                call = new Call("DELETE", "/api/2.0/connections/" + conn + "-c" + n, null);
            } else {
                kind = "PATCH grant";
                call = new Call("PATCH", "/api/2.1/unity-catalog/permissions/table/" + stream + "_ingestion",
                        "{\"changes\": [{\"principal\": \"u" + random.nextInt(50) + "\", \"add\": [\"SELECT\"], "
                                + "\"remove\": []}]}");
            }
            long scheduled = start + i * interval;
            long wait = scheduled - System.nanoTime();
            if (wait > 0) {
                TimeUnit.NANOSECONDS.sleep(wait);
            }
            inFlight.acquire();
            String k = kind;
            futures.add(send(call).whenComplete((r, e) -> {
                long took = System.nanoTime() - scheduled;
                latencies.computeIfAbsent(k, x -> java.util.Collections.synchronizedList(new ArrayList<>()))
                        .add(took);
                int second = (int) Math.min(seconds - 1, (scheduled - start) / 1_000_000_000L);
                sum.addAndGet(second, took);
                count.incrementAndGet(second);
                // A delete may find the connection already gone (404): the only answer besides 200 that is right.
                boolean ok = e == null && (r.status() == 200 || k.startsWith("DELETE") && r.status() == 404);
                if (!ok) {
                    errors.computeIfAbsent(k, x -> new AtomicInteger()).incrementAndGet();
                    if (errors.get(k).get() <= 3) {
                        System.out.println(k + " failed: " + (e != null ? e : r.status() + " " + r.body()));
                    }
                }
                inFlight.release();
            }));
        }
        CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new)).exceptionally(e -> null).join();
        StringBuilder timeline = new StringBuilder("mean latency (ms) by second due:");
        for (int s = 0; s < seconds; s++) {
            timeline.append(s % 10 == 0 ? "\n  " + s + "s:" : "").append(' ')
                    .append(count.get(s) == 0 ? "-" : Long.toString(sum.get(s) / count.get(s) / 1_000_000));
        }
        System.out.println((report ? "" : "warm-up ") + timeline);
        Map<String, Result> out = new java.util.TreeMap<>();
        latencies.forEach((k, v) -> out.put(k, Result.of(v, errors.getOrDefault(k, new AtomicInteger()).get())));
        return out;
    }

    Result run(int rate, int seconds, java.util.function.IntFunction<Call> calls) throws Exception {
        List<Long> latencies = java.util.Collections.synchronizedList(new ArrayList<>());
        AtomicInteger errors = new AtomicInteger();
        long interval = 1_000_000_000L / rate;
        Semaphore inFlight = new Semaphore(512);
        List<CompletableFuture<?>> futures = new ArrayList<>();
        long start = System.nanoTime() + 50_000_000L;
        for (int i = 0; i < rate * seconds; i++) {
            long scheduled = start + i * interval;
            long wait = scheduled - System.nanoTime();
            if (wait > 0) {
                TimeUnit.NANOSECONDS.sleep(wait);
            }
            inFlight.acquire();
            futures.add(send(calls.apply(i))
                    .whenComplete((r, e) -> {
                        latencies.add(System.nanoTime() - scheduled);
                        if (e != null || r.status() != 200) {
                            errors.incrementAndGet();
                        }
                        inFlight.release();
                    }));
        }
        CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new)).exceptionally(e -> null).join();
        return Result.of(latencies, errors.get());
    }

    static void produce(String bootstrap, String run, int streams, int perSecond, long[] produced,
            AtomicBoolean producing) {
        try (KafkaProducer<String, String> p = new KafkaProducer<>(Map.<String, Object>of("bootstrap.servers",
                bootstrap, "linger.ms", 20), new StringSerializer(), new StringSerializer())) {
            long start = System.nanoTime();
            for (long i = 0; producing.get(); i++) {
                long due = start + i * 1_000_000_000L / perSecond;
                long wait = due - System.nanoTime();
                if (wait > 0) {
                    TimeUnit.NANOSECONDS.sleep(wait);
                }
                int s = (int) (i % streams);
                p.send(new ProducerRecord<>("load-" + run + "-" + s, "{\"id\": \"" + i + "\", \"amount\": 1.5}"));
                produced[s]++;
            }
            p.flush();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Each stream's rows_ingested reaches what was produced for it (within 120 s), and no more. */
    boolean verify(String run, int streams, long[] produced) throws Exception {
        Pattern rows = Pattern.compile("\"rows_ingested\"\\s*:\\s*(\\d+)");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        long[] seen = new long[streams];
        boolean done = false;
        while (!done && System.nanoTime() < deadline) {
            done = true;
            for (int s = 0; s < streams; s++) {
                String body = send(new Call("GET", STREAMS + "/load.r" + run + ".stream" + s, null)).get().body();
                Matcher m = rows.matcher(body);
                seen[s] = m.find() ? Long.parseLong(m.group(1)) : -1;
                done &= seen[s] == produced[s];
            }
            if (!done) {
                Thread.sleep(1000);
            }
        }
        long total = Arrays.stream(produced).sum();
        System.out.printf(Locale.ROOT, "ingested while loaded: %d records over %d streams; every stream exactly "
                + "its records: %s%n", total, streams, done ? "yes" : "NO " + Arrays.toString(seen) + " vs "
                + Arrays.toString(produced));
        return done;
    }

    void ok(String method, String path, String body) throws Exception {
        Answer r = send(new Call(method, path, body)).get();
        if (r.status() != 200) {
            throw new IllegalStateException(method + " " + path + ": " + r.status() + " " + r.body());
        }
    }

    static String streamBody(String run, int s) {
        String name = "load.r" + run + ".stream" + s;
        return "{\"name\": \"" + name + "\", \"source_config\": {\"kafka_stream_config\": {\"subscription_mode\": "
                + "{\"subscribe\": \"load-" + run + "-" + s + "\"}}}, \"connection_config\": {\"uc_connection_name\": "
                + "\"load-" + run + "\"}, \"schema_config\": {\"direct_schemas\": {\"payload_schema\": {\"json_schema\":"
                + " \"{\\\"type\\\": \\\"object\\\", \\\"properties\\\": {\\\"id\\\": {\\\"type\\\": \\\"string\\\"}, "
                + "\\\"amount\\\": {\\\"type\\\": \\\"number\\\"}}}\"}}}, \"ingestion_config\": "
                + "{\"ingestion_destination\": {\"delta_table_name\": \"" + name + "_ingestion\"}}}";
    }

    record Result(long[] sorted, int errors) {
        static Result of(List<Long> nanos, int errors) {
            long[] a;
            synchronized (nanos) {
                a = nanos.stream().mapToLong(Long::longValue).toArray();
            }
            Arrays.sort(a);
            return new Result(a, errors);
        }

        static Result merge(java.util.Collection<Result> parts) {
            long[] a = parts.stream().flatMapToLong(r -> Arrays.stream(r.sorted)).sorted().toArray();
            return new Result(a, parts.stream().mapToInt(Result::errors).sum());
        }

        double p(double q) {
            int i = (int) Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1);
            return sorted.length == 0 ? 0 : sorted[Math.max(0, i)] / 1e6;
        }

        void print(String label, Result baseline) {
            System.out.printf(Locale.ROOT, "%-32s %8d %9.2f %9.2f %9.2f %7d %9.1f%n", label, sorted.length, p(0.5),
                    p(0.99), sorted.length == 0 ? 0 : sorted[sorted.length - 1] / 1e6, errors,
                    p(0.99) / Math.max(0.001, baseline.p(0.99)));
        }
    }
}
