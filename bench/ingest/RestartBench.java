import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * bench/ingest/restart.sh's steps, each its own JVM: {@code setup} (topic, connection, stream), {@code fill} (the
 * backlog), {@code plain} (a plain KafkaConsumer over it, in a fresh JVM as a user's consumer would be), and
 * {@code measure} (started with the restarted server: the time from readiness to the last committed offset).
 */
public final class RestartBench {
    static final String STREAMS = "/api/2.0/feature-engineering/streams";
    static final String STREAM = "main.bench.restart";
    static final int PARTITIONS = 6;

    public static void main(String[] args) throws Exception {
        switch (args[0]) {
            case "setup" -> setup(args[1], args[2], args[3], args[4]);
            case "fill" -> fill(args[1], args[2], Integer.parseInt(args[3]));
            case "plain" -> plain(args[1], args[2], Integer.parseInt(args[3]));
            case "measure" -> measure(args[1], args[2], Long.parseLong(args[3]), Double.parseDouble(args[4]));
            default -> throw new IllegalArgumentException(args[0]);
        }
    }

    static void setup(String base, String token, String bootstrap, String topic) throws Exception {
        Properties admin = new Properties();
        admin.put("bootstrap.servers", bootstrap);
        try (Admin a = Admin.create(admin)) {
            a.createTopics(List.of(new NewTopic(topic, PARTITIONS, (short) 1))).all().get(30, TimeUnit.SECONDS);
        }
        call(base, token, "POST", "/api/2.0/connections", "{\"name\": \"bench\", \"connection_type\": \"KAFKA\", "
                + "\"options\": {\"bootstrap_servers\": \"" + bootstrap + "\"}}");
        String schema = "{\\\"type\\\":\\\"object\\\",\\\"properties\\\":{\\\"id\\\":{\\\"type\\\":\\\"integer\\\"},"
                + "\\\"user\\\":{\\\"type\\\":\\\"string\\\"},\\\"amount\\\":{\\\"type\\\":\\\"number\\\"},"
                + "\\\"currency\\\":{\\\"type\\\":\\\"string\\\"},\\\"country\\\":{\\\"type\\\":\\\"string\\\"},"
                + "\\\"ok\\\":{\\\"type\\\":\\\"boolean\\\"},\\\"note\\\":{\\\"type\\\":\\\"string\\\"}}}";
        call(base, token, "POST", STREAMS, "{\"name\": \"" + STREAM + "\", \"source_config\": {\"kafka_stream_config\": "
                + "{\"subscription_mode\": {\"subscribe\": \"" + topic + "\"}}}, \"connection_config\": "
                + "{\"uc_connection_name\": \"bench\"}, \"schema_config\": {\"direct_schemas\": {\"payload_schema\": "
                + "{\"json_schema\": \"" + schema + "\"}}}, \"ingestion_config\": {\"ingestion_destination\": "
                + "{\"delta_table_name\": \"" + STREAM + "_ingestion\"}}}");
        System.out.println("created " + STREAM + " over the empty topic " + topic);
    }

    static void fill(String bootstrap, String topic, int records) throws Exception {
        Properties p = new Properties();
        p.put("bootstrap.servers", bootstrap);
        p.put("linger.ms", "20");
        p.put("batch.size", "262144");
        p.put("acks", "1");
        Random random = new Random(1);
        long bytes = 0;
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p, new ByteArraySerializer(),
                new ByteArraySerializer())) {
            for (int i = 0; i < records; i++) {
                byte[] v = String.format(Locale.ROOT, "{\"id\":%d,\"user\":\"user-%d\",\"amount\":%.2f,"
                        + "\"currency\":\"%s\",\"country\":\"%s\",\"ok\":%b,\"note\":\"payment %d of the bench\"}", i,
                        random.nextInt(100_000), random.nextDouble() * 1000, random.nextBoolean() ? "EUR" : "USD",
                        List.of("FR", "DE", "US", "JP").get(random.nextInt(4)), random.nextBoolean(), i)
                        .getBytes(java.nio.charset.StandardCharsets.UTF_8);
                bytes += v.length;
                producer.send(new ProducerRecord<>(topic, i % PARTITIONS, null, v));
            }
            producer.flush();
        }
        System.out.printf(Locale.ROOT, "filled %s with %,d JSON records, %.0f bytes each on average%n", topic,
                records, (double) bytes / records);
    }

    static void plain(String bootstrap, String topic, int records) {
        Properties props = new Properties();
        props.put("bootstrap.servers", bootstrap);
        props.put("max.poll.records", "5000");
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props, new ByteArrayDeserializer(),
                new ByteArrayDeserializer())) {
            List<TopicPartition> partitions = new ArrayList<>();
            for (int p = 0; p < PARTITIONS; p++) {
                partitions.add(new TopicPartition(topic, p));
            }
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            long started = System.nanoTime();
            long seen = 0;
            while (seen < records) {
                ConsumerRecords<byte[], byte[]> polled = consumer.poll(Duration.ofSeconds(1));
                seen += polled.count();
            }
            double seconds = (System.nanoTime() - started) / 1e9;
            // The last line is what restart.sh reads: records per second.
            System.out.printf(Locale.ROOT, "plain KafkaConsumer (a fresh JVM): %,d records in %.2f s%n%.0f%n", seen,
                    seconds, seen / seconds);
        }
    }

    /** Polls readiness, then the stream's committed offsets, from the server's start (epoch ms) on. */
    static void measure(String base, String token, long records, double plainRate) throws Exception {
        long startedMs = Long.parseLong(System.getenv("SERVER_STARTED_MS"));
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        long ready;
        while (true) {
            try {
                HttpResponse<Void> r = http.send(HttpRequest.newBuilder(URI.create(base + "/q/health/ready"))
                        .timeout(Duration.ofSeconds(2)).build(), HttpResponse.BodyHandlers.discarding());
                if (r.statusCode() == 200) {
                    ready = System.currentTimeMillis();
                    break;
                }
            } catch (java.io.IOException e) {
                // not listening yet
            }
            Thread.sleep(10);
        }
        long readyNanos = System.nanoTime();
        Pattern offset = Pattern.compile("\"committed_offset\"\\s*:\\s*(\\d+)");
        long committed = 0;
        long firstRows = -1;
        while (committed < records) {
            String body = call(base, token, "GET", STREAMS + "/" + STREAM, null);
            committed = 0;
            Matcher m = offset.matcher(body);
            while (m.find()) {
                committed += Long.parseLong(m.group(1));
            }
            if (firstRows < 0 && committed > 0) {
                firstRows = System.nanoTime();
            }
            if ((System.nanoTime() - readyNanos) > TimeUnit.MINUTES.toNanos(10)) {
                throw new IllegalStateException("not caught up in 10 minutes: " + committed + " of " + records);
            }
            // Each GET reads the stream's positions: asked every 20 ms, it took a fair share of the cold server's CPU.
            Thread.sleep(100);
        }
        double seconds = (System.nanoTime() - readyNanos) / 1e9;
        double rate = records / seconds;
        System.out.printf(Locale.ROOT, "server ready %.2f s after its process started%n", (ready - startedMs) / 1e3);
        System.out.printf(Locale.ROOT, "first commit seen %.2f s after readiness%n", (firstRows - readyNanos) / 1e9);
        System.out.printf(Locale.ROOT, "restarted server's catch-up, readiness to the last committed offset: %,d records "
                + "in %.2f s = %,.0f records/s%n", records, seconds, rate);
        System.out.printf(Locale.ROOT, "ratio to the plain consumer (%,.0f records/s): %.2f (goal >= 0.3)%n", plainRate,
                rate / plainRate);
    }

    static String call(String base, String token, String method, String path, String body) throws Exception {
        HttpClient http = HttpClient.newHttpClient();
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(30))
                .header("Authorization", "Bearer " + token).header("Content-Type", "application/json");
        b.method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
            throw new IllegalStateException(method + " " + path + ": " + r.statusCode() + " " + r.body());
        }
        return r.body();
    }
}
