import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The push bench's client (run by run.sh with `java PushBench.java`): for 1, 10 and 100 concurrent producers, each
 * pushing batches of BATCH records (the ingest bench's ~128-byte JSON records) to one direct stream over loopback
 * until RECORDS records are in, prints records/s, MB/s and the acknowledgement latency (committed and readable)
 * p50/p99; then the same RECORDS records through Kafka into a Kafka stream of the same server, and its catch-up rate
 * (stream created on a filled topic until GET says every record is in). Each level runs over HTTP (one push in
 * flight per producer, answered after its commit) and over the streaming connection (one WebSocket per producer,
 * INFLIGHT batches in flight, each acknowledged after its commit), on a stream of its own.
 */
public final class PushBench {
    static final String STREAMS = "/api/2.0/feature-engineering/streams";
    static final String JSON_SCHEMA = "{\"type\":\"object\",\"properties\":{\"id\":{\"type\":\"integer\"},"
            + "\"user\":{\"type\":\"string\"},\"amount\":{\"type\":\"number\"},\"currency\":{\"type\":\"string\"},"
            + "\"country\":{\"type\":\"string\"},\"ok\":{\"type\":\"boolean\"}}}";

    final String base;
    final String token;
    final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .executor(Executors.newFixedThreadPool(8)).build();

    PushBench(String base, String token) {
        this.base = base;
        this.token = token;
    }

    public static void main(String[] args) throws Exception {
        PushBench bench = new PushBench(args[0], args[1]);
        String bootstrap = args[2];
        int records = Integer.parseInt(args[3]);
        int batch = Integer.parseInt(args[4]);
        List<Integer> levels = Arrays.stream(args[5].split(",")).map(Integer::parseInt).toList();
        List<String> modes = List.of(args.length > 6 ? args[6].split(",") : new String[] {"http", "ws"});
        int inflight = args.length > 7 ? Integer.parseInt(args[7]) : 4;
        String run = Long.toString(System.nanoTime(), 36);
        // A short warm-up stream, so the first level does not pay class loading and JIT alone.
        for (String mode : modes) {
            bench.level(mode, inflight, "main.push_" + run + ".warm_" + mode, 10, Math.min(records, 20_000), batch,
                    false);
        }
        for (int producers : levels) {
            for (String mode : modes) {
                bench.level(mode, inflight, "main.push_" + run + ".p" + producers + "_" + mode, producers, records,
                        batch, true);
            }
        }
        bench.kafka("main.push_" + run + ".kafka", bootstrap, "push_bench_" + run, records);
        System.exit(0); // the HTTP client's threads would keep the JVM up
    }

    void create(String name, String source, String connection) throws Exception {
        String body = "{\"name\": \"" + name + "\", \"source_config\": " + source + ","
                + (connection == null ? "" : " \"connection_config\": {\"uc_connection_name\": \"" + connection + "\"},")
                + " \"schema_config\": {\"direct_schemas\": {\"payload_schema\": {\"json_schema\": "
                + quote(JSON_SCHEMA) + "}}}, \"ingestion_config\": {\"ingestion_destination\": "
                + "{\"delta_table_name\": \"" + name + "_ingestion\"}}}";
        HttpResponse<String> r = send("POST", STREAMS, body, "application/json");
        if (r.statusCode() != 200) {
            throw new IllegalStateException("creating " + name + ": " + r.statusCode() + " " + r.body());
        }
    }

    void level(String mode, int inflight, String stream, int producers, int records, int batch, boolean print)
            throws Exception {
        create(stream, "{\"direct_source_config\": {}}", null);
        int batchesPerProducer = (records + producers * batch - 1) / (producers * batch);
        AtomicLong bytes = new AtomicLong();
        long[][] latencies = new long[producers][batchesPerProducer];
        ExecutorService pool = Executors.newFixedThreadPool(producers);
        long started = System.nanoTime();
        List<Future<?>> all = new ArrayList<>();
        for (int p = 0; p < producers; p++) {
            int producer = p;
            all.add(pool.submit(() -> {
                Random random = new Random(producer);
                Connection connection = mode.equals("ws")
                        ? new Connection(stream, inflight, latencies[producer]) : null;
                for (int seq = 0; seq < batchesPerProducer; seq++) {
                    StringBuilder body = new StringBuilder(batch * 160).append("{\"producer_id\": \"p-")
                            .append(producer).append("\", \"sequence\": ").append(seq).append(", \"records\": [");
                    for (int i = 0; i < batch; i++) {
                        String value = record((long) (producer * batchesPerProducer + seq) * batch + i, random);
                        bytes.addAndGet(value.length());
                        body.append(i == 0 ? "" : ",").append("{\"value\": ").append(value).append('}');
                    }
                    String payload = body.append("]}").toString();
                    if (connection != null) {
                        connection.send(seq, payload);
                        continue;
                    }
                    long sent = System.nanoTime();
                    HttpResponse<String> r = send("POST", STREAMS + "/" + stream + "/records", payload,
                            "application/json");
                    latencies[producer][seq] = System.nanoTime() - sent;
                    if (r.statusCode() != 200) {
                        throw new IllegalStateException("push " + producer + "/" + seq + ": " + r.statusCode() + " "
                                + r.body());
                    }
                }
                if (connection != null) {
                    connection.finish();
                }
                return null;
            }));
        }
        for (Future<?> f : all) {
            f.get();
        }
        double seconds = (System.nanoTime() - started) / 1e9;
        pool.shutdown();
        long pushed = (long) producers * batchesPerProducer * batch;
        long rows = rowsIngested(stream);
        long[] sorted = Arrays.stream(latencies).flatMapToLong(Arrays::stream).sorted().toArray();
        if (print) {
            System.out.printf("%s, %3d producers: %,d records (%d per push) in %.2f s = %,.0f records/s, %.1f MB/s; "
                    + "ack p50 %.0f ms, p99 %.0f ms; table has %,d rows in %d commits%n",
                    mode.equals("ws") ? "ws (" + inflight + " in flight)" : "http", producers, pushed, batch,
                    seconds, pushed / seconds, bytes.get() / seconds / 1e6, sorted[sorted.length / 2] / 1e6,
                    sorted[(int) Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))] / 1e6, rows,
                    tableVersion(stream));
        }
        if (rows != pushed) {
            throw new IllegalStateException(stream + " has " + rows + " rows, " + pushed + " were pushed");
        }
    }

    /**
     * One producer's streaming connection: at most {@code inflight} batches unacknowledged (within the server's
     * window), each batch's latency from its send to its acknowledgement; any refusal fails the bench.
     */
    final class Connection implements WebSocket.Listener {
        final Semaphore window;
        final long[] latencies;
        final long[] sentAt;
        final CompletableFuture<Void> done = new CompletableFuture<>();
        final StringBuilder partial = new StringBuilder();
        final WebSocket socket;
        int acknowledged;

        Connection(String stream, int inflight, long[] latencies) throws Exception {
            this.window = new Semaphore(inflight);
            this.latencies = latencies;
            this.sentAt = new long[latencies.length];
            socket = HttpClient.newHttpClient().newWebSocketBuilder().header("Authorization", "Bearer " + token)
                    .buildAsync(URI.create(base.replaceFirst("^http", "ws") + STREAMS + "/" + stream
                            + "/records/stream"), this).get(60, TimeUnit.SECONDS);
        }

        void send(int seq, String payload) throws Exception {
            if (!window.tryAcquire(120, TimeUnit.SECONDS)) {
                throw new IllegalStateException("no acknowledgement for 120 s");
            }
            if (done.isCompletedExceptionally()) {
                done.join();
            }
            sentAt[seq] = System.nanoTime();
            socket.sendText(payload, true).join();
        }

        void finish() throws Exception {
            done.get(300, TimeUnit.SECONDS);
            socket.sendClose(WebSocket.NORMAL_CLOSURE, "done").join();
        }

        @Override
        public CompletionStage<?> onText(WebSocket webSocket, CharSequence data, boolean last) {
            partial.append(data);
            webSocket.request(1);
            if (!last) {
                return null;
            }
            String ack = partial.toString();
            partial.setLength(0);
            long now = System.nanoTime();
            long seq = number(ack, "sequence");
            if (ack.contains("\"error_code\"") || seq < 0) {
                done.completeExceptionally(new IllegalStateException("refused: " + ack));
                window.release(latencies.length);
                return null;
            }
            latencies[(int) seq] = now - sentAt[(int) seq];
            window.release();
            if (++acknowledged == latencies.length) {
                done.complete(null);
            }
            return null;
        }

        @Override
        public CompletionStage<?> onClose(WebSocket webSocket, int statusCode, String reason) {
            if (!done.isDone()) {
                done.completeExceptionally(new IllegalStateException("closed: " + statusCode + " " + reason));
            }
            return null;
        }

        @Override
        public void onError(WebSocket webSocket, Throwable error) {
            done.completeExceptionally(error);
        }
    }

    void kafka(String stream, String bootstrap, String topic, int records) throws Exception {
        String connection = "push_bench_" + Long.toString(System.nanoTime(), 36);
        HttpResponse<String> c = send("POST", "/api/2.0/connections", "{\"name\": \"" + connection
                + "\", \"connection_type\": \"KAFKA\", \"options\": {\"bootstrap_servers\": \"" + bootstrap + "\"}}",
                "application/json");
        if (c.statusCode() != 200) {
            throw new IllegalStateException("connection: " + c.body());
        }
        // A new stream starts at the topic's end: it is created on an empty topic, then the records go in, and the
        // clock runs from the first record sent.
        String topic2 = topic;
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
            admin.createTopics(List.of(new NewTopic(topic2, 6, (short) 1))).all().get();
        }
        create(stream, "{\"kafka_stream_config\": {\"subscription_mode\": {\"subscribe\": \"" + topic2 + "\"}}}",
                connection);
        Random random = new Random(1);
        // Filled as fast as the producer goes, then the stream catches up: the rate is records over the time from the
        // first record sent until GET reports them all (the fill itself is a fraction of it).
        long started = System.nanoTime();
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(Map.of("bootstrap.servers", bootstrap,
                "linger.ms", "20", "batch.size", "262144", "acks", "1"), new ByteArraySerializer(),
                new ByteArraySerializer())) {
            for (int i = 0; i < records; i++) {
                producer.send(new ProducerRecord<>(topic2, i % 6, null,
                        record(i, random).getBytes(StandardCharsets.UTF_8)));
            }
            producer.flush();
        }
        double filled = (System.nanoTime() - started) / 1e9;
        while (rowsIngested(stream) < records) {
            Thread.sleep(100);
        }
        double seconds = (System.nanoTime() - started) / 1e9;
        System.out.printf("kafka catch-up (same server, same %,d records, 6 partitions): %.2f s = %,.0f records/s "
                + "(fill took %.2f s of it)%n", records, seconds, records / seconds, filled);
    }

    long rowsIngested(String stream) throws Exception {
        return number(send("GET", STREAMS + "/" + stream, null, null).body(), "rows_ingested");
    }

    long tableVersion(String stream) throws Exception {
        return number(send("GET", STREAMS + "/" + stream, null, null).body(), "table_version");
    }

    static long number(String json, String field) {
        Matcher m = Pattern.compile("\"" + field + "\"\\s*:\\s*(\\d+)").matcher(json);
        return m.find() ? Long.parseLong(m.group(1)) : -1;
    }

    HttpResponse<String> send(String method, String path, String body, String type) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(120))
                .header("Authorization", "Bearer " + token);
        if (body != null) {
            b.header("Content-Type", type).method(method, HttpRequest.BodyPublishers.ofString(body));
        } else {
            b.method(method, HttpRequest.BodyPublishers.noBody());
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** The ingest bench's record (IngestBench.record): about 128 bytes of JSON. */
    static String record(long i, Random random) {
        return "{\"id\":" + i + ",\"user\":\"user-" + (100000 + random.nextInt(900000)) + "\",\"amount\":"
                + (random.nextInt(1000000) / 100.0) + ",\"currency\":\"EUR\",\"country\":\"DE\",\"ok\":true,"
                + "\"note\":\"padding-" + Long.toHexString(random.nextLong()) + "\"}";
    }

    static String quote(String s) {
        return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }
}
