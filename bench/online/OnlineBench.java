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
 * bench/online's client (run.sh runs it with `java OnlineBench.java`): a stream with a CONTINUOUS synced table over
 * KEYS keys gets RATE records/s for the whole run. Sync delay: every 50th record is a probe, and a poller reads the
 * probes' keys from PostgreSQL every 10 ms until each shows its sequence number (record produced -> row visible).
 * Lookups: 1,000 requests/s open loop (latency counts from each request's scheduled time) of 1-key and 100-key
 * POST .../lookup over loopback HTTP, next to the same rate of plain primary-key SELECTs over JDBC on the same table.
 * Then the 1-key lookups and the SELECTs again with production stopped, and the server's GC pauses (its
 * jvm_gc_pause_seconds metrics) during both 1-key phases: on a 2-core machine a young collection stops the lookups'
 * event loops while every request that arrives meanwhile waits, which the SELECT, in another process, never sees.
 */
public final class OnlineBench {
    static final String STREAMS = "/api/2.0/feature-engineering/streams";
    static final String SYNCED = "/api/2.0/database/synced_tables";

    /**
     * Clients, each of its own Vert.x and so on an event loop of its own, taken in turn: requests sent from one thread
     * all land on one loop (Vert.x keeps a caller's context), and one client thread doing every request's I/O waited
     * for a CPU as long as the server's loops did on a busy machine (8 s in the run queue for every 1 s it ran) --
     * the JDBC baseline below has 8 threads.
     */
    static final int CLIENTS = 4;
    final Vertx[] vertx = new Vertx[CLIENTS];
    final HttpClient[] http = new HttpClient[CLIENTS];
    final String token;
    final AtomicInteger next = new AtomicInteger();

    OnlineBench(String base, String token) {
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
        HttpClient client = http[Math.floorMod(next.getAndIncrement(), CLIENTS)];
        return client.request(o).compose(r -> body == null ? r.send() : r.send(Buffer.buffer(body)))
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

    static int run(String[] args) throws Exception {
        String base = args[0];
        String token = args[1];
        String bootstrap = args[2];
        String jdbc = args[3];
        int rate = Integer.parseInt(args[4]);
        int keys = Integer.parseInt(args[5]);
        int lookupSeconds = Integer.parseInt(args[6]);
        int lookupRate = Integer.parseInt(args[7]);
        long serverPid = args.length > 8 ? Long.parseLong(args[8]) : -1;
        OnlineBench b = new OnlineBench(base, token);
        String topic = "online-bench";
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
                + "\\\"amount\\\":{\\\"type\\\":\\\"number\\\"},\\\"seq\\\":{\\\"type\\\":\\\"integer\\\"}}}";
        b.call("POST", STREAMS, "{\"name\": \"main.bench.events\", \"source_config\": {\"kafka_stream_config\": "
                + "{\"subscription_mode\": {\"subscribe\": \"" + topic + "\"}}}, \"connection_config\": "
                + "{\"uc_connection_name\": \"bench\"}, \"schema_config\": {\"direct_schemas\": {\"payload_schema\": "
                + "{\"json_schema\": \"" + schema + "\"}}}, \"ingestion_config\": {\"ingestion_destination\": "
                + "{\"delta_table_name\": \"main.bench.events_ingestion\"}}}");
        b.call("POST", SYNCED, "{\"name\": \"main.bench.events_online\", \"spec\": {\"source_table_full_name\": "
                + "\"main.bench.events_ingestion\", \"primary_key_columns\": [\"value.user_id\"], \"timeseries_key\": "
                + "\"stream_record_timestamp\", \"scheduling_policy\": \"CONTINUOUS\"}}");
        String table = "tributary_online.main__bench__events_online";

        Properties p = new Properties();
        p.put("bootstrap.servers", bootstrap);
        p.put("linger.ms", "5");
        p.put("acks", "1");
        KafkaProducer<String, String> producer = new KafkaProducer<>(p, new StringSerializer(), new StringSerializer());
        AtomicLong seq = new AtomicLong();
        // Every key once, as fast as it goes, so lookups hit.
        long t0 = System.nanoTime();
        for (int k = 0; k < keys; k++) {
            producer.send(new ProducerRecord<>(topic, "k" + k, value(k, seq.incrementAndGet())));
        }
        producer.flush();
        try (Connection c = DriverManager.getConnection(jdbc)) {
            waitRows(c, table, keys);
        }
        System.out.printf(Locale.ROOT, "loaded %d keys: produced and synced in %.1f s%n", keys,
                (System.nanoTime() - t0) / 1e9);

        // Production at RATE for the rest of the run, with probes.
        AtomicBoolean producing = new AtomicBoolean(true);
        Map<String, long[]> probes = new ConcurrentHashMap<>(); // key -> {seq, producedNanos}
        List<Long> delays = java.util.Collections.synchronizedList(new ArrayList<>());
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
                int k = random.nextInt(keys);
                long s = seq.incrementAndGet();
                String key = "k" + k;
                if (i % 50 == 0 && !probes.containsKey(key)) {
                    probes.put(key, new long[] {s, System.nanoTime()});
                }
                producer.send(new ProducerRecord<>(topic, key, value(k, s)));
                produced.incrementAndGet();
            }
        }, "producer");
        Thread poller = new Thread(() -> {
            try (Connection c = DriverManager.getConnection(jdbc);
                    PreparedStatement s = c.prepareStatement("SELECT value_user_id, value_seq FROM " + table
                            + " WHERE value_user_id = ANY(?)")) {
                while (producing.get() || !probes.isEmpty()) {
                    if (!probes.isEmpty()) {
                        String[] ks = probes.keySet().toArray(new String[0]);
                        s.setArray(1, c.createArrayOf("text", ks));
                        long now = System.nanoTime();
                        try (ResultSet rs = s.executeQuery()) {
                            while (rs.next()) {
                                long[] probe = probes.get(rs.getString(1));
                                if (probe != null && rs.getLong(2) >= probe[0]) {
                                    delays.add(now - probe[1]);
                                    probes.remove(rs.getString(1));
                                }
                            }
                        }
                    }
                    Thread.sleep(10);
                    if (!producing.get() && System.nanoTime() - t0 > 0 && probes.size() > 0) {
                        // After production stops, give stragglers 30 s.
                        long deadline = System.nanoTime() + 30_000_000_000L;
                        while (!probes.isEmpty() && System.nanoTime() < deadline) {
                            String[] rest = probes.keySet().toArray(new String[0]);
                            s.setArray(1, c.createArrayOf("text", rest));
                            long n2 = System.nanoTime();
                            try (ResultSet rs = s.executeQuery()) {
                                while (rs.next()) {
                                    long[] probe = probes.get(rs.getString(1));
                                    if (probe != null && rs.getLong(2) >= probe[0]) {
                                        delays.add(n2 - probe[1]);
                                        probes.remove(rs.getString(1));
                                    }
                                }
                            }
                            Thread.sleep(10);
                        }
                        break;
                    }
                }
            } catch (Exception e) {
                e.printStackTrace();
            }
        }, "poller");
        producerThread.start();
        poller.start();
        Thread.sleep(5_000); // let the continuous sync settle at the rate before measuring lookups
        // The server's CPU without lookups (ingestion and sync at the rate), to take out of the lookup phases'.
        long idle0 = cpuMs(serverPid);
        long idleStart = System.nanoTime();
        Thread.sleep(5_000);
        double idleMsPerSecond = (cpuMs(serverPid) - idle0) / ((System.nanoTime() - idleStart) / 1e9);

        Random random = new Random(2);
        String lookup = SYNCED + "/main.bench.events_online/lookup";
        long[] warm = b.httpPhase(lookupRate, 5, () -> oneKey(random, keys), lookup);
        long cpu0 = cpuMs(serverPid);
        long phase0 = System.nanoTime();
        double[] gc0 = b.gcPauses();
        long[] one = b.httpPhase(lookupRate, lookupSeconds, () -> oneKey(random, keys), lookup);
        double[] gcOne = b.gcPausesSince(gc0);
        long cpu1 = cpuMs(serverPid);
        long phase1 = System.nanoTime();
        long[] hundred = b.httpPhase(lookupRate, lookupSeconds, () -> manyKeys(random, keys, 100), lookup);
        long cpu2 = cpuMs(serverPid);
        long phase2 = System.nanoTime();
        long[] select = jdbcPhase(jdbc, table, lookupRate, lookupSeconds, random, keys);
        producing.set(false);
        producerThread.join();
        producer.close();
        poller.join();
        // The same 1-key lookups and SELECTs once production has stopped and the sync has caught up: the serving
        // path's own latency, without ingestion, sync and their garbage competing for the machine's CPUs.
        double quietAfter = awaitQuiet(serverPid);
        System.out.printf(Locale.ROOT, "production stopped; the server went quiet %.1f s later%n", quietAfter);
        double settled = awaitJitSettled(serverPid, () -> b.httpPhase(lookupRate, 1, () -> oneKey(random, keys),
                lookup));
        System.out.printf(Locale.ROOT, "the server's JIT settled after %.1f s of 1-key lookups%n", settled);
        double[] gcQuiet0 = b.gcPauses();
        long quietCpu0 = cpuMs(serverPid);
        long quietJit0 = jitMs(serverPid);
        long[] quietOne = b.httpPhase(lookupRate, lookupSeconds, () -> oneKey(random, keys), lookup);
        long quietCpu = cpuMs(serverPid) - quietCpu0;
        long quietJit = jitMs(serverPid) - quietJit0;
        double[] gcQuiet = b.gcPausesSince(gcQuiet0);
        long[] quietSelect = jdbcPhase(jdbc, table, lookupRate, lookupSeconds, random, keys);

        long seconds = Math.max(1, (System.nanoTime() - t0) / 1_000_000_000L);
        long[] d = delays.stream().mapToLong(Long::longValue).sorted().toArray();
        System.out.printf(Locale.ROOT, "produced %d records at %d/s over %d keys (plus the %d loading ones); "
                + "%d probes seen, %d never%n", produced.get(), rate, keys, keys, d.length, probes.size());
        System.out.printf(Locale.ROOT, "%-40s %8s %9s %9s %9s %7s%n", "measure", "count", "p50 ms", "p99 ms",
                "max ms", "errors");
        row("sync delay (produced -> visible in PG)", d, 0);
        row("lookup, 1 key (HTTP)", Arrays.copyOf(one, one.length - 1), one[one.length - 1]);
        row("lookup, 100 keys (HTTP)", Arrays.copyOf(hundred, hundred.length - 1), hundred[hundred.length - 1]);
        row("plain SELECT by primary key (JDBC)", Arrays.copyOf(select, select.length - 1), select[select.length - 1]);
        row("production stopped: lookup, 1 key", Arrays.copyOf(quietOne, quietOne.length - 1),
                quietOne[quietOne.length - 1]);
        row("production stopped: plain SELECT", Arrays.copyOf(quietSelect, quietSelect.length - 1),
                quietSelect[quietSelect.length - 1]);
        if (gcOne != null && gcQuiet != null) {
            System.out.printf(Locale.ROOT, "server GC pauses during the 1-key lookups: %.0f pauses, %.0f ms in all "
                    + "while producing; %.0f pauses, %.0f ms with production stopped%n", gcOne[0], gcOne[1] * 1000,
                    gcQuiet[0], gcQuiet[1] * 1000);
        }
        if (serverPid > 0) {
            // CPU the server spent per request (its continuous sync and ingestion included): a figure a loaded
            // machine skews far less than latency.
            double oneCpu = (cpu1 - cpu0 - idleMsPerSecond * (phase1 - phase0) / 1e9) / (one.length - 1);
            double hundredCpu = (cpu2 - cpu1 - idleMsPerSecond * (phase2 - phase1) / 1e9) / (hundred.length - 1);
            System.out.printf(Locale.ROOT, "server CPU per lookup request (the CPU it spends on ingestion and sync, "
                    + "%.0f ms/s measured before, taken out): 1 key %.2f ms, 100 keys %.2f ms; with production "
                    + "stopped (nothing taken out): 1 key %.2f ms%n", idleMsPerSecond, oneCpu, hundredCpu,
                    (double) quietCpu / (quietOne.length - 1));
            System.out.printf(Locale.ROOT, "the server's JIT compiler threads during the production-stopped 1-key "
                    + "lookups: %d ms of CPU%n", quietJit);
        }
        double ratio = pct(sorted(one), 0.99) / Math.max(1e-9, pct(sorted(select), 0.99));
        System.out.printf(Locale.ROOT, "1-key lookup p99 / plain SELECT p99: %.2fx while producing, %.2fx with "
                + "production stopped (warm-up: %d requests not counted)%n", ratio,
                pct(sorted(quietOne), 0.99) / Math.max(1e-9, pct(sorted(quietSelect), 0.99)), warm.length - 1);
        return 0;
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

    static String value(int k, long seq) {
        return "{\"user_id\": \"k" + k + "\", \"amount\": " + (k % 1000) + ".5, \"seq\": " + seq + "}";
    }

    static String oneKey(Random r, int keys) {
        return "{\"keys\": [{\"value_user_id\": \"k" + r.nextInt(keys) + "\"}]}";
    }

    static String manyKeys(Random r, int keys, int n) {
        StringBuilder b = new StringBuilder("{\"keys\": [");
        for (int i = 0; i < n; i++) {
            b.append(i == 0 ? "" : ",").append("{\"value_user_id\": \"k").append(r.nextInt(keys)).append("\"}");
        }
        return b.append("]}").toString();
    }

    static void waitRows(Connection c, String table, int rows) throws Exception {
        long deadline = System.nanoTime() + 600_000_000_000L;
        while (System.nanoTime() < deadline) {
            try (PreparedStatement s = c.prepareStatement("SELECT count(*) FROM " + table);
                    ResultSet rs = s.executeQuery()) {
                rs.next();
                if (rs.getLong(1) >= rows) {
                    return;
                }
            } catch (java.sql.SQLException e) {
                // not created yet
            }
            Thread.sleep(200);
        }
        throw new IllegalStateException("the synced table never reached " + rows + " rows");
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

    /** The same open loop over JDBC: 8 connections, each a plain prepared primary-key SELECT. */
    static long[] jdbcPhase(String jdbc, String table, int rate, int seconds, Random random, int keys)
            throws Exception {
        int n = rate * seconds;
        long[] out = new long[n + 1];
        AtomicInteger errors = new AtomicInteger();
        int threads = 8;
        BlockingQueue<Connection> pool = new ArrayBlockingQueue<>(threads);
        for (int i = 0; i < threads; i++) {
            pool.add(DriverManager.getConnection(jdbc));
        }
        ExecutorService workers = Executors.newFixedThreadPool(threads);
        Map<Connection, PreparedStatement> statements = new HashMap<>();
        for (Connection c : pool) {
            statements.put(c, c.prepareStatement("SELECT * FROM " + table + " WHERE value_user_id = ?"));
        }
        long start = System.nanoTime() + 10_000_000L;
        long interval = 1_000_000_000L / rate;
        List<java.util.concurrent.Future<?>> futures = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            long at = start + i * interval;
            long wait = at - System.nanoTime();
            if (wait > 0) {
                java.util.concurrent.locks.LockSupport.parkNanos(wait);
            }
            int index = i;
            String key = "k" + random.nextInt(keys);
            futures.add(workers.submit(() -> {
                Connection c = null;
                try {
                    c = pool.take();
                    PreparedStatement s = statements.get(c);
                    s.setString(1, key);
                    try (ResultSet rs = s.executeQuery()) {
                        while (rs.next()) {
                            rs.getString("value_user_id");
                        }
                    }
                } catch (Exception e) {
                    errors.incrementAndGet();
                } finally {
                    out[index] = System.nanoTime() - at;
                    if (c != null) {
                        pool.add(c);
                    }
                }
            }));
        }
        for (java.util.concurrent.Future<?> f : futures) {
            f.get(60, TimeUnit.SECONDS);
        }
        workers.shutdown();
        for (Connection c : statements.keySet()) {
            c.close();
        }
        out[n] = errors.get();
        return out;
    }
}
