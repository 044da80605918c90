import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;
import java.net.URI;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * bench/features' client (run.sh runs it with `java FeaturesBench.java`): a stream and a feature view over KEYS
 * entities get RATE records/s for the whole run, each record's event time its production time. Lag: the view's status
 * lag_ms once a second. Freshness: every 200th record is a probe with an entity of its own; a poller looks the pending
 * probes up every 20 ms until each shows its 1 s window's count (record produced -> visible online, including the wait
 * for the window to end). Lookups: LOOKUP_RATE requests/s open loop (latency from each request's scheduled time) of
 * 1-key lookups over loopback HTTP.
 */
public final class FeaturesBench {
    static final String STREAMS = "/api/2.0/feature-engineering/streams";
    static final String SYNCED = "/api/2.0/database/synced_tables";

    /** Clients on event loops of their own, taken in turn (as bench/online's: one loop for all starved). */
    static final int CLIENTS = 4;
    final Vertx[] vertx = new Vertx[CLIENTS];
    final HttpClient[] http = new HttpClient[CLIENTS];
    final String token;
    final java.util.concurrent.atomic.AtomicInteger next = new java.util.concurrent.atomic.AtomicInteger();

    FeaturesBench(String base, String token) {
        URI uri = URI.create(base);
        for (int i = 0; i < CLIENTS; i++) {
            vertx[i] = Vertx.vertx(new io.vertx.core.VertxOptions().setEventLoopPoolSize(1));
            http[i] = vertx[i].createHttpClient(new HttpClientOptions().setDefaultHost(uri.getHost())
                    .setDefaultPort(uri.getPort()).setKeepAlive(true),
                    new PoolOptions().setHttp1MaxSize(64 / CLIENTS));
        }
        this.token = token;
    }

    record Answer(int status, String body) {}

    CompletableFuture<Answer> send(String method, String path, String body) {
        RequestOptions o = new RequestOptions().setMethod(HttpMethod.valueOf(method)).setURI(path).setTimeout(10_000)
                .putHeader("Authorization", "Bearer " + token);
        if (body != null) {
            o.putHeader("Content-Type", "application/json");
        }
        return http[Math.floorMod(next.getAndIncrement(), CLIENTS)].request(o).compose(r -> body == null ? r.send() : r.send(Buffer.buffer(body)))
                .compose(r -> r.body().map(b -> new Answer(r.statusCode(), b.toString())))
                .toCompletionStage().toCompletableFuture();
    }

    Answer call(String method, String path, String body) throws Exception {
        Answer a = send(method, path, body).get(60, TimeUnit.SECONDS);
        if (a.status() != 200) {
            throw new IllegalStateException(method + " " + path + " -> " + a.status() + " " + a.body());
        }
        return a;
    }

    public static void main(String[] args) throws Exception {
        int rc;
        try {
            rc = run(args);
        } catch (Throwable e) {
            e.printStackTrace();
            rc = 1;
        }
        System.exit(rc);
    }

    static final String VIEWS = "/api/2.0/feature-engineering/feature-views";
    static final String VIEW = "main.bench.user_features";
    static final String VIEW_DEFINITION = "{\"name\": \"" + VIEW + "\", "
            + "\"source\": {\"stream_name\": \"main.bench.events\"}, "
            + "\"entity_columns\": [\"value.user_id\"], \"timestamp_column\": \"value.event_time\", "
            + "\"allowed_lateness\": \"5s\", \"features\": ["
            + "{\"name\": \"n_1s\", \"function\": \"count\", \"window\": {\"tumbling\": {\"duration\": \"1s\"}}},"
            + "{\"name\": \"sum_1m\", \"function\": \"sum\", \"column\": \"value.amount\", \"window\": "
            + "{\"sliding\": {\"duration\": \"1m\", \"slide\": \"10s\"}}},"
            + "{\"name\": \"avg_5m\", \"function\": \"avg\", \"column\": \"value.amount\", \"window\": "
            + "{\"rolling\": {\"duration\": \"5m\"}}}]}";

    static int run(String[] args) throws Exception {
        String base = args[0];
        String token = args[1];
        String bootstrap = args[2];
        int rate = Integer.parseInt(args[3]);
        int keys = Integer.parseInt(args[4]);
        int lookupSeconds = Integer.parseInt(args[5]);
        int lookupRate = Integer.parseInt(args[6]);
        long serverPid = args.length > 8 ? Long.parseLong(args[8]) : -1;
        FeaturesBench b = new FeaturesBench(base, token);
        String topic = "features-bench";
        Properties admin = new Properties();
        admin.put("bootstrap.servers", bootstrap);
        try (Admin a = Admin.create(admin)) {
            a.createTopics(List.of(new NewTopic(topic, 6, (short) 1))).all().get(30, TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
            if (!(e.getCause() instanceof org.apache.kafka.common.errors.TopicExistsException)) {
                throw e;
            }
        }
        b.call("POST", "/api/2.0/connections", "{\"name\": \"bench\", \"connection_type\": \"KAFKA\", \"options\": "
                + "{\"bootstrap_servers\": \"" + bootstrap + "\"}}");
        String schema = "{\\\"type\\\":\\\"object\\\",\\\"properties\\\":{\\\"user_id\\\":{\\\"type\\\":\\\"string\\\"},"
                + "\\\"amount\\\":{\\\"type\\\":\\\"number\\\"},\\\"event_time\\\":{\\\"type\\\":\\\"integer\\\"}}}";
        b.call("POST", STREAMS, "{\"name\": \"main.bench.events\", \"source_config\": {\"kafka_stream_config\": "
                + "{\"subscription_mode\": {\"subscribe\": \"" + topic + "\"}}}, \"connection_config\": "
                + "{\"uc_connection_name\": \"bench\"}, \"schema_config\": {\"direct_schemas\": {\"payload_schema\": "
                + "{\"json_schema\": \"" + schema + "\"}}}, \"ingestion_config\": {\"ingestion_destination\": "
                + "{\"delta_table_name\": \"main.bench.events_ingestion\"}}}");
        if (args[7].equals("catchup")) {
            return catchUp(b, bootstrap, topic, keys);
        }
        b.call("POST", VIEWS, VIEW_DEFINITION);

        Properties p = new Properties();
        p.put("bootstrap.servers", bootstrap);
        p.put("linger.ms", "5");
        p.put("acks", "1");
        KafkaProducer<String, String> producer = new KafkaProducer<>(p, new StringSerializer(), new StringSerializer());
        long t0 = System.nanoTime();
        AtomicBoolean producing = new AtomicBoolean(true);
        Map<String, Long> probes = new ConcurrentHashMap<>(); // probe entity -> produced (nanos)
        List<Long> freshness = java.util.Collections.synchronizedList(new ArrayList<>());
        // When each freshness sample was taken (nanos since t0), to tell the phases apart.
        List<Long> freshnessAt = java.util.Collections.synchronizedList(new ArrayList<>());
        List<Long> lags = java.util.Collections.synchronizedList(new ArrayList<>());
        AtomicLong produced = new AtomicLong();
        Thread producerThread = new Thread(() -> {
            Random random = new Random(1);
            long start = System.nanoTime();
            long interval = 1_000_000_000L / rate;
            for (long i = 0; producing.get(); i++) {
                long at = start + i * interval;
                long wait = at - System.nanoTime();
                if (wait > 0) {
                    java.util.concurrent.locks.LockSupport.parkNanos(wait);
                }
                String key = i % 200 == 0 ? "probe" + i : "k" + random.nextInt(keys);
                if (i % 200 == 0) {
                    probes.put(key, System.nanoTime());
                }
                producer.send(new ProducerRecord<>(topic, key, "{\"user_id\": \"" + key + "\", \"amount\": "
                        + (i % 1000) + ".5, \"event_time\": " + System.currentTimeMillis() + "}"));
                produced.incrementAndGet();
            }
        }, "producer");
        Thread poller = new Thread(() -> {
            try {
                while (producing.get()) {
                    if (!probes.isEmpty()) {
                        List<String> ks = new ArrayList<>(probes.keySet());
                        StringBuilder body = new StringBuilder("{\"keys\": [");
                        for (int i = 0; i < Math.min(ks.size(), 1000); i++) {
                            body.append(i == 0 ? "" : ",").append("{\"value_user_id\": \"").append(ks.get(i))
                                    .append("\"}");
                        }
                        long sent = System.nanoTime();
                        Answer a = b.call("POST", VIEWS + "/" + VIEW + "/lookup", body.append("]}").toString());
                        // results in key order: a non-null n_1s means the probe's window is visible online
                        String[] parts = a.body().split("\\{\"value_user_id\":\"");
                        for (int i = 1; i < parts.length; i++) {
                            String k = parts[i].substring(0, parts[i].indexOf('"'));
                            if (parts[i].contains("\"n_1s\":1")) {
                                Long at = probes.remove(k);
                                if (at != null) {
                                    synchronized (freshness) {
                                        freshness.add(sent - at);
                                        freshnessAt.add(at - t0);
                                    }
                                }
                            }
                        }
                    }
                    Thread.sleep(20);
                }
            } catch (Exception e) {
                e.printStackTrace();
            }
        }, "poller");
        Thread status = new Thread(() -> {
            try {
                while (producing.get()) {
                    Answer a = b.call("GET", VIEWS + "/" + VIEW, null);
                    java.util.regex.Matcher m = java.util.regex.Pattern.compile("\"lag_ms\":([0-9]+)")
                            .matcher(a.body());
                    if (m.find() && System.nanoTime() - t0 > Long.getLong("settle.seconds", 15) * 1_000_000_000L) {
                        lags.add(Long.parseLong(m.group(1)) * 1_000_000L);
                    }
                    Thread.sleep(1000);
                }
            } catch (Exception e) {
                e.printStackTrace();
            }
        }, "status");
        producerThread.start();
        poller.start();
        status.start();
        // A fresh server JIT-compiles for its first minute or so at this rate, on the same two cores: freshness is
        // measured apart while it settles and once it has (SETTLE_SECONDS, then STEADY_SECONDS without lookups).
        Thread.sleep(Long.getLong("settle.seconds", 15) * 1000);
        // The server's CPU without lookups (ingestion and materialization at the rate, the probes' poller), to take
        // out of the lookup phase's.
        long idle0 = cpuMs(serverPid);
        long idleStart = System.nanoTime();
        long settled = idleStart - t0;
        Thread.sleep(Long.getLong("steady.seconds", 5) * 1000);
        double idleMsPerSecond = (cpuMs(serverPid) - idle0) / ((System.nanoTime() - idleStart) / 1e9);
        long steadyEnd = System.nanoTime() - t0;

        Random random = new Random(2);
        String lookup = VIEWS + "/" + VIEW + "/lookup";
        java.util.function.Supplier<String> oneKey = () -> "{\"keys\": [{\"value_user_id\": \"k"
                + random.nextInt(keys) + "\"}]}";
        long[] warm = b.httpPhase(lookupRate, 5, oneKey, lookup);
        double[] gc0 = b.gcPauses();
        long cpu0 = cpuMs(serverPid);
        long phase0 = System.nanoTime();
        long[] one = b.httpPhase(lookupRate, lookupSeconds, oneKey, lookup);
        long cpu1 = cpuMs(serverPid);
        long phase1 = System.nanoTime();
        long lookupsFrom = phase0 - t0;
        double[] gcOne = b.gcPausesSince(gc0);
        producing.set(false);
        producerThread.join();
        producer.close();
        poller.join();
        status.join();
        // The same lookups once production has stopped and the view has caught up (a round after the last commit,
        // then nothing): the serving path's own latency, without ingestion and materialization competing for the
        // CPUs and the database.
        double quietAfter = awaitQuiet(serverPid);
        System.out.printf(Locale.ROOT, "production stopped; the server went quiet %.1f s later%n", quietAfter);
        double jitSettled = awaitJitSettled(serverPid, () -> b.httpPhase(lookupRate, 1, oneKey, lookup));
        System.out.printf(Locale.ROOT, "the server's JIT settled after %.1f s of 1-key lookups%n", jitSettled);
        double[] gcQuiet0 = b.gcPauses();
        long quietCpu0 = cpuMs(serverPid);
        long quietJit0 = jitMs(serverPid);
        long[] quiet = b.httpPhase(lookupRate, Math.max(1, lookupSeconds / 2), oneKey, lookup);
        long quietCpu = cpuMs(serverPid) - quietCpu0;
        long quietJit = jitMs(serverPid) - quietJit0;
        if (System.getProperty("timeline") != null) {
            // Each request's latency in the order they were scheduled, to see whether slow ones come in bursts.
            try (java.io.PrintWriter w = new java.io.PrintWriter(System.getProperty("timeline"))) {
                for (int i = 0; i < quiet.length - 1; i++) {
                    w.println(quiet[i]);
                }
            }
        }
        double[] gcQuiet = b.gcPausesSince(gcQuiet0);
        Answer last = b.call("GET", VIEWS + "/" + VIEW, null);
        long[] f = freshness.stream().mapToLong(Long::longValue).sorted().toArray();
        long[] l = lags.stream().mapToLong(Long::longValue).sorted().toArray();
        System.out.printf(Locale.ROOT, "produced %d records at %d/s over %d entities (+ a probe entity every 200th); "
                + "%d probes seen, %d never%n", produced.get(), rate, keys, f.length, probes.size());
        System.out.printf(Locale.ROOT, "%-44s %8s %9s %9s %9s %7s%n", "measure", "count", "p50 ms", "p99 ms",
                "max ms", "errors");
        row("view lag behind the source (status lag_ms)", l, 0);
        row("freshness (produced -> 1s window online)", f, 0);
        row("  while settling (first " + (settled / 1_000_000_000L) + " s)", phaseOf(freshness, freshnessAt, 0,
                settled), 0);
        row("  settled, no lookups", phaseOf(freshness, freshnessAt, settled, steadyEnd), 0);
        row("  lookups' warm-up", phaseOf(freshness, freshnessAt, steadyEnd, lookupsFrom), 0);
        row("  during the 1-key lookups", phaseOf(freshness, freshnessAt, lookupsFrom, Long.MAX_VALUE), 0);
        row("lookup, 1 key (HTTP)", Arrays.copyOf(one, one.length - 1), one[one.length - 1]);
        row("production stopped: lookup, 1 key", Arrays.copyOf(quiet, quiet.length - 1), quiet[quiet.length - 1]);
        if (gcOne != null && gcQuiet != null) {
            System.out.printf(Locale.ROOT, "server GC pauses during the 1-key lookups: %.0f pauses, %.0f ms in all "
                    + "while producing; %.0f pauses, %.0f ms with production stopped%n", gcOne[0], gcOne[1] * 1000,
                    gcQuiet[0], gcQuiet[1] * 1000);
        }
        if (serverPid > 0) {
            // CPU the server spent per request: a figure a loaded machine skews far less than latency.
            double oneCpu = (cpu1 - cpu0 - idleMsPerSecond * (phase1 - phase0) / 1e9) / (one.length - 1);
            System.out.printf(Locale.ROOT, "server CPU per 1-key lookup (the %.0f ms/s it spends on ingestion and "
                    + "materialization, measured before, taken out): %.2f ms; with production stopped (nothing taken "
                    + "out): %.2f ms%n", idleMsPerSecond, oneCpu, (double) quietCpu / (quiet.length - 1));
            System.out.printf(Locale.ROOT, "the server's JIT compiler threads during the production-stopped "
                    + "lookups: %d ms of CPU%n", quietJit);
        }
        System.out.println("final status: " + last.body());
        System.out.printf(Locale.ROOT, "(warm-up: %d requests not counted)%n", warm.length - 1);
        return 0;
    }

    /** The samples produced within [from, to) nanos of the run's start. */
    static long[] phaseOf(List<Long> samples, List<Long> at, long from, long to) {
        synchronized (samples) {
            List<Long> out = new ArrayList<>();
            for (int i = 0; i < samples.size(); i++) {
                if (at.get(i) >= from && at.get(i) < to) {
                    out.add(samples.get(i));
                }
            }
            return out.stream().mapToLong(Long::longValue).toArray();
        }
    }

    static long[] sorted(long[] withErrors) {
        long[] v = Arrays.copyOf(withErrors, withErrors.length - 1);
        Arrays.sort(v);
        return v;
    }

    static void row(String name, long[] nanos, long errors) {
        long[] v = nanos.clone();
        Arrays.sort(v);
        System.out.printf(Locale.ROOT, "%-40s %8d %9.2f %9.2f %9.2f %7d%n", name, v.length, pct(v, 0.5) / 1e6,
                pct(v, 0.99) / 1e6, v.length == 0 ? 0 : v[v.length - 1] / 1e6, errors);
    }

    static double pct(long[] sorted, double q) {
        if (sorted.length == 0) {
            return 0;
        }
        return sorted[Math.min(sorted.length - 1, (int) Math.ceil(q * sorted.length) - 1)];
    }





    /** Open loop: request i is due at start + i/rate; its latency counts from then. Last element: errors. */
    long[] httpPhase(int rate, int seconds, java.util.function.Supplier<String> body, String path) throws Exception {
        int n = rate * seconds;
        long[] out = new long[n + 1];
        AtomicInteger errors = new AtomicInteger();
        CompletableFuture<?>[] all = new CompletableFuture<?>[n];
        long start = System.nanoTime() + 10_000_000L;
        long interval = 1_000_000_000L / rate;
        for (int i = 0; i < n; i++) {
            long at = start + i * interval;
            long wait = at - System.nanoTime();
            if (wait > 0) {
                java.util.concurrent.locks.LockSupport.parkNanos(wait);
            }
            int index = i;
            all[i] = send("POST", path, body.get()).handle((a, e) -> {
                out[index] = System.nanoTime() - at;
                if (e != null || a.status() != 200) {
                    errors.incrementAndGet();
                }
                return null;
            });
        }
        CompletableFuture.allOf(all).get(60, TimeUnit.SECONDS);
        out[n] = errors.get();
        return out;
    }


    /**
     * The server's GC pauses so far, {count, seconds}, from the JVM metrics it serves ({@code jvm_gc_pause_seconds},
     * every collector and cause added up); null when /q/metrics does not answer.
     */
    double[] gcPauses() {
        try {
            Answer a = send("GET", "/q/metrics", null).get(30, TimeUnit.SECONDS);
            if (a.status() != 200) {
                return null;
            }
            double count = 0;
            double seconds = 0;
            for (String line : a.body().split("\n")) {
                if (line.startsWith("jvm_gc_pause_seconds_count{")) {
                    count += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
                } else if (line.startsWith("jvm_gc_pause_seconds_sum{")) {
                    seconds += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
                }
            }
            return new double[] {count, seconds};
        } catch (Exception e) {
            return null;
        }
    }

    double[] gcPausesSince(double[] before) {
        double[] now = gcPauses();
        return before == null || now == null ? null : new double[] {now[0] - before[0], now[1] - before[1]};
    }

    /**
     * Waits until the server has caught up (its CPU below 15 % of a core over half a second), at most 60 s; returns
     * the seconds waited. After an overloaded phase a fixed pause left the "production stopped" lookups measured
     * beside a server still working off its backlog.
     */
    static double awaitQuiet(long pid) throws InterruptedException {
        long start = System.nanoTime();
        if (pid <= 0) {
            Thread.sleep(3_000);
            return 3;
        }
        long before = cpuMs(pid);
        while (System.nanoTime() - start < 60_000_000_000L) {
            Thread.sleep(500);
            long now = cpuMs(pid);
            if (now - before < 75) {
                break;
            }
            before = now;
        }
        return (System.nanoTime() - start) / 1e9;
    }

    /**
     * Runs {@code phase} (a second of the lookups at the rate) until the server's JIT compiler threads used less than
     * 30 ms of CPU in each of three seconds in a row, at most 90 s; returns the seconds it took. After production
     * stops the JIT goes on compiling what the overloaded phase queued or deoptimized (0.3 of a core for 8 s of the
     * lookups in a run of 2026-12-07), in bursts, so lookups measured at once measured the compiler's share of two
     * cores, not the serving path.
     */
    static double awaitJitSettled(long pid, java.util.concurrent.Callable<long[]> phase) throws Exception {
        long start = System.nanoTime();
        if (jitMs(pid) < 0) {
            phase.call();
            return (System.nanoTime() - start) / 1e9;
        }
        int quietSeconds = 0;
        while (quietSeconds < 3 && System.nanoTime() - start < 90_000_000_000L) {
            long before = jitMs(pid);
            phase.call();
            quietSeconds = jitMs(pid) - before < 30 ? quietSeconds + 1 : 0;
        }
        return (System.nanoTime() - start) / 1e9;
    }

    /** CPU of a process's JIT compiler threads so far (C1 and C2, from /proc, ticks of 10 ms); -1 when unknown. */
    static long jitMs(long pid) {
        if (pid <= 0) {
            return -1;
        }
        try (var tasks = java.nio.file.Files.list(java.nio.file.Path.of("/proc/" + pid + "/task"))) {
            long sum = 0;
            for (java.nio.file.Path t : (Iterable<java.nio.file.Path>) tasks::iterator) {
                String stat;
                try {
                    stat = java.nio.file.Files.readString(t.resolve("stat"));
                } catch (java.io.IOException gone) {
                    continue; // the thread ended meanwhile
                }
                String comm = stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
                if (comm.startsWith("C1 CompilerThre") || comm.startsWith("C2 CompilerThre")) {
                    String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                    sum += (Long.parseLong(f[11]) + Long.parseLong(f[12])) * 10;
                }
            }
            return sum;
        } catch (java.io.IOException | RuntimeException e) {
            return -1;
        }
    }

    /** User and system CPU of a process so far, from /proc (clock ticks of 10 ms); -1 when unknown. */
    static long cpuMs(long pid) {
        if (pid <= 0) {
            return -1;
        }
        try {
            String stat = java.nio.file.Files.readString(java.nio.file.Path.of("/proc/" + pid + "/stat"));
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return (Long.parseLong(f[11]) + Long.parseLong(f[12])) * 10;
        } catch (java.io.IOException | RuntimeException e) {
            return -1;
        }
    }

    /**
     * Catch-up mode: KEYS records, one per entity, with event times over the last 10 minutes, are produced as fast as
     * the producer goes and ingested (the baseline: the ingestion pipeline's own catch-up over the same backlog); then
     * the view is created and its first round takes the whole table (every entity's tiles at once, the most memory a
     * round needs). Prints both rates and their ratio; run.sh samples the server's heap meanwhile.
     */
    static int catchUp(FeaturesBench b, String bootstrap, String topic, int keys) throws Exception {
        Properties p = new Properties();
        p.put("bootstrap.servers", bootstrap);
        p.put("linger.ms", "20");
        p.put("batch.size", "262144");
        p.put("acks", "1");
        long now = System.currentTimeMillis();
        long t0 = System.nanoTime();
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(p, new StringSerializer(),
                new StringSerializer())) {
            for (int i = 0; i < keys; i++) {
                String key = "k" + i;
                producer.send(new ProducerRecord<>(topic, key, "{\"user_id\": \"" + key + "\", \"amount\": "
                        + (i % 1000) + ".5, \"event_time\": " + (now - 600_000L + (long) i * 600_000L / keys) + "}"));
            }
        }
        long produced = System.nanoTime();
        while (true) {
            Answer a = b.call("GET", STREAMS + "/main.bench.events", null);
            java.util.regex.Matcher m = java.util.regex.Pattern.compile("\"rows_ingested\":([0-9]+)").matcher(a.body());
            if (m.find() && Long.parseLong(m.group(1)) >= keys) {
                break;
            }
            Thread.sleep(200);
        }
        long ingested = System.nanoTime();
        System.out.println("phase view-created " + System.currentTimeMillis());
        b.call("POST", VIEWS, VIEW_DEFINITION);
        long v0 = System.nanoTime();
        String last;
        while (true) {
            last = b.call("GET", VIEWS + "/" + VIEW, null).body();
            java.util.regex.Matcher m = java.util.regex.Pattern.compile("\"records_read\":([0-9]+)").matcher(last);
            if (m.find() && Long.parseLong(m.group(1)) >= keys) {
                break;
            }
            if (last.contains("\"FAILED\"")) {
                System.out.println("the first round failed: " + last);
                return 1;
            }
            Thread.sleep(200);
        }
        long done = System.nanoTime();
        System.out.println("phase view-caught-up " + System.currentTimeMillis());
        double ingestRate = keys / ((ingested - t0) / 1e9);
        double viewRate = keys / ((done - v0) / 1e9);
        System.out.printf(Locale.ROOT, "catch-up over %d records, one per entity: produced in %.1f s; ingested "
                + "(produce + pipeline) in %.1f s = %.0f records/s; the view's first round in %.1f s = %.0f records/s "
                + "(%.2fx the ingestion's rate)%n", keys, (produced - t0) / 1e9, (ingested - t0) / 1e9, ingestRate,
                (done - v0) / 1e9, viewRate, viewRate / ingestRate);
        System.out.println("final status: " + last);
        return 0;
    }

}
