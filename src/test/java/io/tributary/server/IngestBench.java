package io.tributary.server;

import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.distribution.ValueAtPercentile;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tributary.delta.PartitionKey;
import io.tributary.delta.Tables;
import io.tributary.ingest.PipelineSpec;
import io.tributary.ingest.Subscription;
import io.tributary.server.local.EmbeddedKafka;
import io.tributary.schema.SchemaSource;
import io.tributary.testing.KafkaTestSupport;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The ingestion benchmark behind {@code bench/ingest/run.sh}. Modes: {@code broker <dir> <port>} runs a broker in its
 * own JVM (so its memory does not count); {@code fill <bootstrap> <topic> <records>} fills a 6-partition topic with
 * ~130-byte JSON records; {@code run <bootstrap> <topic> <records> <warehouse>} measures catch-up against a plain
 * consumer, freshness at 5k records/s and peak heap.
 */
public final class IngestBench {

    public static final String JSON_SCHEMA = "{\"type\":\"object\",\"properties\":{\"id\":{\"type\":\"integer\"},"
            + "\"user\":{\"type\":\"string\"},\"amount\":{\"type\":\"number\"},\"currency\":{\"type\":\"string\"},"
            + "\"country\":{\"type\":\"string\"},\"ok\":{\"type\":\"boolean\"}}}";

    /**
     * Outside Quarkus, Quarkus's initial log configurator leaves every logger at DEBUG, and parquet-mr then formats a
     * debug line for every value it writes (about ten times slower). Held here so the levels are not collected.
     */
    private static final List<java.util.logging.Logger> QUIET = new ArrayList<>();

    public static void main(String[] args) throws Exception {
        for (String name : List.of("org.apache.parquet", "org.apache.kafka", "kafka", "io.delta", "org.apache.hadoop",
                "state.change.logger")) {
            java.util.logging.Logger logger = java.util.logging.Logger.getLogger(name);
            logger.setLevel(java.util.logging.Level.SEVERE);
            QUIET.add(logger);
        }
        switch (args[0]) {
            case "broker" -> {
                EmbeddedKafka kafka = EmbeddedKafka.start(Path.of(args[1]), Integer.parseInt(args[2]), Map.of());
                System.out.println("broker ready at " + kafka.bootstrapServers());
                Thread.currentThread().join();
            }
            case "fill" -> fill(args[1], args[2], Integer.parseInt(args[3]), args.length > 4 ? args[4] : "json");
            case "run" -> run(args[1], args[2], Integer.parseInt(args[3]), Path.of(args[4]),
                    args.length > 5 ? args[5] : "json");
            default -> throw new IllegalArgumentException(args[0]);
        }
    }

    /** The bench record's shape for Avro and Protobuf: the JSON record's fields, {@code note} included. */
    static final String AVRO_SCHEMA = "{\"type\":\"record\",\"name\":\"Payment\",\"fields\":["
            + "{\"name\":\"id\",\"type\":\"long\"},{\"name\":\"user\",\"type\":\"string\"},"
            + "{\"name\":\"amount\",\"type\":\"double\"},{\"name\":\"currency\",\"type\":\"string\"},"
            + "{\"name\":\"country\",\"type\":\"string\"},{\"name\":\"ok\",\"type\":\"boolean\"},"
            + "{\"name\":\"note\",\"type\":\"string\"}]}";
    static final String PROTO_SCHEMA = "syntax = \"proto3\";\nmessage Payment {\n  int64 id = 1;\n  string user = 2;\n"
            + "  double amount = 3;\n  string currency = 4;\n  string country = 5;\n  bool ok = 6;\n  string note = 7;\n}\n";
    private static final org.apache.avro.Schema AVRO = new org.apache.avro.Schema.Parser().parse(AVRO_SCHEMA);

    /** The payload formats {@code BENCH_FORMATS} chooses from: json (the default), avro, protobuf, wide (~1 KB JSON). */
    static SchemaSource valueSchema(String format) {
        return switch (format) {
            case "json" -> new SchemaSource.JsonSchema(JSON_SCHEMA);
            case "avro" -> new SchemaSource.Avro(AVRO_SCHEMA);
            case "protobuf" -> new SchemaSource.Protobuf(PROTO_SCHEMA, "Payment");
            case "wide" -> new SchemaSource.JsonSchema(WideRecords.JSON_SCHEMA);
            default -> throw new IllegalArgumentException("unknown bench format " + format);
        };
    }

    static byte[] record(String format, long i, Random random) {
        return switch (format) {
            case "json" -> record(i, random);
            case "avro" -> avroRecord(i, random);
            case "protobuf" -> protoRecord(i, random);
            case "wide" -> WideRecords.record(i, random);
            default -> throw new IllegalArgumentException("unknown bench format " + format);
        };
    }

    static byte[] avroRecord(long i, Random random) {
        org.apache.avro.generic.GenericData.Record r = new org.apache.avro.generic.GenericData.Record(AVRO);
        r.put("id", i);
        r.put("user", "user-" + (100000 + random.nextInt(900000)));
        r.put("amount", random.nextInt(1000000) / 100.0);
        r.put("currency", "EUR");
        r.put("country", "DE");
        r.put("ok", true);
        r.put("note", "padding-" + Long.toHexString(random.nextLong()));
        try {
            java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream(96);
            org.apache.avro.io.BinaryEncoder e = org.apache.avro.io.EncoderFactory.get().binaryEncoder(out, null);
            new org.apache.avro.generic.GenericDatumWriter<org.apache.avro.generic.GenericRecord>(AVRO).write(r, e);
            e.flush();
            return out.toByteArray();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    static byte[] protoRecord(long i, Random random) {
        try {
            java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream(96);
            com.google.protobuf.CodedOutputStream o = com.google.protobuf.CodedOutputStream.newInstance(bytes);
            o.writeInt64(1, i);
            o.writeString(2, "user-" + (100000 + random.nextInt(900000)));
            o.writeDouble(3, random.nextInt(1000000) / 100.0);
            o.writeString(4, "EUR");
            o.writeString(5, "DE");
            o.writeBool(6, true);
            o.writeString(7, "padding-" + Long.toHexString(random.nextLong()));
            o.flush();
            return bytes.toByteArray();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    public static byte[] record(long i, Random random) {
        String s = "{\"id\":" + i + ",\"user\":\"user-" + (100000 + random.nextInt(900000)) + "\",\"amount\":"
                + (random.nextInt(1000000) / 100.0) + ",\"currency\":\"EUR\",\"country\":\"DE\",\"ok\":true,"
                + "\"note\":\"padding-" + Long.toHexString(random.nextLong()) + "\"}";
        return s.getBytes(StandardCharsets.UTF_8);
    }

    static void fill(String bootstrap, String topic, int records, String format) throws Exception {
        try (KafkaTestSupport topics = new KafkaTestSupport(bootstrap)) {
            topics.createTopic(topic, 6);
        }
        Random random = new Random(1);
        long bytes = 0;
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(Map.of("bootstrap.servers", bootstrap,
                "linger.ms", "20", "batch.size", "262144", "acks", "1"), new ByteArraySerializer(),
                new ByteArraySerializer())) {
            for (int i = 0; i < records; i++) {
                byte[] v = record(format, i, random);
                bytes += v.length;
                producer.send(new ProducerRecord<>(topic, i % 6, null, v));
            }
            producer.flush();
        }
        System.out.printf("filled %s with %d %s records, %.0f bytes each on average%n", topic, records, format,
                (double) bytes / records);
    }

    static void run(String bootstrap, String topic, int records, Path warehouse, String format) throws Exception {
        SchemaSource valueSchema = valueSchema(format);
        long plainCpu = processCpuNanos();
        double plain = plainConsumer(bootstrap, topic, records);
        plainCpu = processCpuNanos() - plainCpu;
        System.out.printf("plain KafkaConsumer: %,d records in %.2f s = %,.0f records/s, %.2f µs CPU per record%n",
                records, records / plain, plain, plainCpu / 1e3 / records);

        Tables tables = Tables.forWarehouse(warehouse.toString(), Optional.empty());
        resetPeakHeap();
        Map<PartitionKey, Long> fromStart = new HashMap<>();
        for (int p = 0; p < 6; p++) {
            fromStart.put(new PartitionKey(topic, p), 0L);
        }
        PipelineSettings settings = new PipelineSettings(Duration.ofSeconds(1), 100_000, 64L << 20,
                Duration.ofSeconds(30));
        // A running server has loaded and compiled the ingest path long before a new stream catches up; the first
        // stream of a fresh JVM pays class loading and JIT (seconds). Measure both: warm is the figure that matters.
        if (System.getenv("BENCH_COLD") == null) {
            // Warm means the JIT is done, as in a server that has run for a while. One fixed warm-up was not: on two
            // cores C2's queue stays long for seconds (methods wait at tier 2), and the measured catch-up still
            // compiled for 2-4 s of its 3-4 s. So warm-up streams run until one spends under a tenth of its time
            // compiling (BENCH_WARMUP: each one's records, default all of them; BENCH_WARMUP_ROUNDS: at most, 8).
            int warmRecords = Math.min(records, System.getenv("BENCH_WARMUP") == null ? records
                    : Integer.parseInt(System.getenv("BENCH_WARMUP").replace("_", "")));
            int maxRounds = Integer.parseInt(System.getenv().getOrDefault("BENCH_WARMUP_ROUNDS", "8"));
            for (int round = 1; round <= maxRounds; round++) {
                PipelineSpec warm = KafkaStreamFixture.create(tables, "warm_up_" + round,
                        new Subscription.Topics(List.of(topic)), new SchemaSource.Plain(), valueSchema, fromStart,
                        Map.of("bootstrap.servers", bootstrap));
                StreamPipeline warmPipeline = KafkaStreamFixture.pipeline(tables, warm, settings);
                long jitBefore = ManagementFactory.getCompilationMXBean().getTotalCompilationTime();
                long warmStarted = System.nanoTime();
                warmPipeline.start();
                while (warmPipeline.status().rowsIngested() < warmRecords) {
                    Thread.sleep(20);
                }
                double warmSeconds = (System.nanoTime() - warmStarted) / 1e9;
                long jitMs = ManagementFactory.getCompilationMXBean().getTotalCompilationTime() - jitBefore;
                warmPipeline.stop();
                System.out.printf("warm-up stream %d%s: %,d records in %.2f s = %,.0f records/s, JIT %,d ms%n", round,
                        round == 1 ? " (first in this JVM, cold)" : "", warmPipeline.status().rowsIngested(),
                        warmSeconds, warmPipeline.status().rowsIngested() / warmSeconds, jitMs);
                if (jitMs < warmSeconds * 100) {
                    break;
                }
            }
            resetPeakHeap();
        }
        PipelineSpec catchUp = KafkaStreamFixture.create(tables, "catch_up", new Subscription.Topics(List.of(topic)),
                new SchemaSource.Plain(), valueSchema, fromStart,
                Map.of("bootstrap.servers", bootstrap));
        StreamPipeline pipeline = KafkaStreamFixture.pipeline(tables, catchUp, settings);
        long started = System.nanoTime();
        long cpuStarted = processCpuNanos();
        Map<Long, long[]> threadsStarted = threadCpu();
        long jitStarted = ManagementFactory.getCompilationMXBean().getTotalCompilationTime();
        long classesStarted = ManagementFactory.getClassLoadingMXBean().getTotalLoadedClassCount();
        pipeline.start();
        long lastPrint = started;
        while (pipeline.status().rowsIngested() < records) {
            Thread.sleep(20);
            if (System.getenv("BENCH_TRACE") != null && System.nanoTime() - lastPrint > 1_000_000_000L) {
                lastPrint = System.nanoTime();
                System.out.printf("  %.1f s: %d rows, version %d%n", (lastPrint - started) / 1e9,
                        pipeline.status().rowsIngested(), pipeline.status().tableVersion());
            }
        }
        double seconds = (System.nanoTime() - started) / 1e9;
        long cpu = processCpuNanos() - cpuStarted;
        Map<String, Long> byThread = threadCpuSince(threadsStarted);
        long jit = ManagementFactory.getCompilationMXBean().getTotalCompilationTime() - jitStarted;
        long classes = ManagementFactory.getClassLoadingMXBean().getTotalLoadedClassCount() - classesStarted;
        pipeline.stop();
        double ingest = records / seconds;
        System.out.printf("tributary catch-up (poll, decode %s, write Parquet, commit; %s path): %,d records in %.2f s = "
                + "%,.0f records/s%n", format, "false".equals(System.getProperty("tributary.ingest.direct-write"))
                ? "parquet-avro" : "direct", records, seconds, ingest);
        System.out.printf("ratio tributary / plain consumer: %.2f (machine load average %.1f on %d cores)%n",
                ingest / plain, ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage(),
                Runtime.getRuntime().availableProcessors());
        System.out.printf("peak heap during catch-up: %d MB (max heap %d MB)%n", peakHeap() >> 20,
                Runtime.getRuntime().maxMemory() >> 20);
        // On a shared machine wall-clock rates swing with the neighbours; CPU time per record much less so.
        System.out.printf("CPU per record: tributary %.2f µs, plain consumer %.2f µs, ratio %.2f%n",
                cpu / 1e3 / records, plainCpu / 1e3 / records, (double) plainCpu / cpu);
        // Which threads had the cores: JIT and GC threads are not Java threads, so they are what is missing.
        StringBuilder threads = new StringBuilder();
        byThread.entrySet().stream().sorted(Map.Entry.<String, Long>comparingByValue().reversed()).limit(6)
                .forEach(e -> threads.append(String.format(", %s %.2f", e.getKey(), e.getValue() / 1e9 / seconds)));
        System.out.printf("cores used during catch-up: %.2f in all (threads by name%s)%n", cpu / 1e9 / seconds,
                threads);
        // What a cold start pays on top: the JIT compilers' time and the classes loaded, during the catch-up.
        System.out.printf("during catch-up: JIT compilation %,d ms, %,d classes loaded%n", jit, classes);

        String fenceRounds = System.getenv("BENCH_FENCE");
        if (fenceRounds != null) {
            FenceBench.run(bootstrap, topic, records, tables, settings, fromStart, Integer.parseInt(fenceRounds));
        }
        String rescueRounds = System.getenv("BENCH_RESCUE");
        if (rescueRounds != null) {
            RescueBench.run(bootstrap, topic, records, tables, settings, fromStart, Integer.parseInt(rescueRounds));
        }
        if (System.getenv("BENCH_NO_FIRST") == null) {
            firstRecord(bootstrap, tables, settings, format, 3);
        }
        if (System.getenv("BENCH_NO_FRESHNESS") == null) {
            // BENCH_TRIGGERS: the trigger intervals (ms) to measure freshness at, each on a fresh topic and stream.
            for (String trigger : System.getenv().getOrDefault("BENCH_TRIGGERS", "1000").split(",")) {
                PipelineSettings at = new PipelineSettings(Duration.ofMillis(Long.parseLong(trigger.trim())),
                        settings.maxBatchRecords(), settings.maxBatchBytes(), settings.topicRefresh());
                freshness(bootstrap, tables, at);
            }
        }
    }

    static double plainConsumer(String bootstrap, String topic, int records) {
        Map<String, Object> props = new HashMap<>();
        props.put("bootstrap.servers", bootstrap);
        props.put("max.poll.records", "5000");
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props, new ByteArrayDeserializer(),
                new ByteArrayDeserializer())) {
            List<TopicPartition> partitions = new ArrayList<>();
            for (int p = 0; p < 6; p++) {
                partitions.add(new TopicPartition(topic, p));
            }
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            long started = System.nanoTime();
            long seen = 0;
            long bytes = 0;
            while (seen < records) {
                ConsumerRecords<byte[], byte[]> polled = consumer.poll(Duration.ofSeconds(1));
                for (var r : polled) {
                    bytes += r.value().length;
                    seen++;
                }
            }
            double seconds = (System.nanoTime() - started) / 1e9;
            if (bytes == 0) {
                throw new IllegalStateException("no bytes read");
            }
            return seen / seconds;
        }
    }

    /**
     * A new stream's first record, as a user who creates a stream waits for it (the JVM is warm, the stream is not:
     * its consumer joins, its table is created, its decoders and writer start): a record already in a fresh topic,
     * timed from the stream's start to the commit that holds it; then one record produced once that commit is in,
     * timed from send to the commit that holds it.
     */
    static void firstRecord(String bootstrap, Tables tables, PipelineSettings settings, String format, int rounds)
            throws Exception {
        SchemaSource valueSchema = valueSchema(format);
        for (int round = 0; round < rounds; round++) {
            String topic = "first_" + format + "_" + round;
            try (KafkaTestSupport topics = new KafkaTestSupport(bootstrap);
                    KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(Map.of("bootstrap.servers",
                            bootstrap), new ByteArraySerializer(), new ByteArraySerializer())) {
                topics.createTopic(topic, 6);
                Random random = new Random(round);
                producer.send(new ProducerRecord<>(topic, 0, null, record(format, 0, random))).get();
                Map<PartitionKey, Long> fromStart = new HashMap<>();
                for (int p = 0; p < 6; p++) {
                    fromStart.put(new PartitionKey(topic, p), 0L);
                }
                long created = System.nanoTime();
                PipelineSpec spec = KafkaStreamFixture.create(tables, "first_" + format + "_" + round,
                        new Subscription.Topics(List.of(topic)), new SchemaSource.Plain(), valueSchema, fromStart,
                        Map.of("bootstrap.servers", bootstrap));
                StreamPipeline pipeline = KafkaStreamFixture.pipeline(tables, spec, settings);
                pipeline.start();
                while (pipeline.status().rowsIngested() < 1) {
                    Thread.sleep(2);
                }
                double first = (System.nanoTime() - created) / 1e6;
                long sent = System.nanoTime();
                producer.send(new ProducerRecord<>(topic, 1, null, record(format, 1, random))).get();
                while (pipeline.status().rowsIngested() < 2) {
                    Thread.sleep(2);
                }
                double live = (System.nanoTime() - sent) / 1e6;
                pipeline.stop();
                System.out.printf("new stream's first record (%s, round %d, trigger %d ms): waiting record committed"
                        + " %.0f ms after the stream was created; next record %.0f ms from send to committed (load"
                        + " %.1f)%n", format, round + 1, settings.triggerInterval().toMillis(), first, live,
                        ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
            }
        }
    }

    /** 5,000 records/s for 30 s into a fresh topic; freshness is Kafka timestamp to the commit that made it readable. */
    static void freshness(String bootstrap, Tables tables, PipelineSettings settings) throws Exception {
        String topic = "fresh_" + settings.triggerInterval().toMillis();
        try (KafkaTestSupport topics = new KafkaTestSupport(bootstrap)) {
            topics.createTopic(topic, 6);
            SimpleMeterRegistry registry = new SimpleMeterRegistry();
            PipelineSpec spec = KafkaStreamFixture.create(tables, "freshness_" + settings.triggerInterval().toMillis(),
                    new Subscription.Topics(List.of(topic)), new SchemaSource.Plain(),
                    new SchemaSource.JsonSchema(JSON_SCHEMA), topics.endOffsets(topic),
                    Map.of("bootstrap.servers", bootstrap));
            StreamPipeline pipeline = KafkaStreamFixture.pipeline(tables, spec, settings, registry);
            pipeline.start();
            Thread.sleep(3000);
            Random random = new Random(2);
            int total = 150_000;
            try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(Map.of("bootstrap.servers", bootstrap,
                    "linger.ms", "5"), new ByteArraySerializer(), new ByteArraySerializer())) {
                long start = System.nanoTime();
                for (int i = 0; i < total; i++) {
                    long due = start + (long) i * 200_000L;
                    long wait = due - System.nanoTime();
                    if (wait > 0) {
                        TimeUnit.NANOSECONDS.sleep(wait);
                    }
                    producer.send(new ProducerRecord<>(topic, i % 6, null, record(i, random)));
                }
                producer.flush();
            }
            while (pipeline.status().rowsIngested() < total) {
                Thread.sleep(50);
            }
            Timer timer = registry.get("tributary.ingest.freshness").timer();
            StringBuilder out = new StringBuilder();
            for (ValueAtPercentile v : timer.takeSnapshot().percentileValues()) {
                out.append(String.format(" p%.0f=%.0f ms", v.percentile() * 100, v.value(TimeUnit.MILLISECONDS)));
            }
            long count = timer.count();
            double max = timer.max(TimeUnit.MILLISECONDS);
            pipeline.stop();
            System.out.printf("freshness at 5,000 records/s, trigger %d ms (produce to committed, %d sampled records):%s,"
                    + " max=%.0f ms%n", settings.triggerInterval().toMillis(), count, out, max);
        }
    }

    /** CPU time of every thread of this JVM (the ingest threads, the consumer's, GC and JIT). */
    /** CPU nanoseconds of every live Java thread by id, with its name's hash to tell reused ids apart. */
    static Map<Long, long[]> threadCpu() {
        java.lang.management.ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        Map<Long, long[]> out = new HashMap<>();
        for (long id : mx.getAllThreadIds()) {
            long cpu = mx.getThreadCpuTime(id);
            if (cpu >= 0) {
                out.put(id, new long[] {cpu});
            }
        }
        return out;
    }

    /** CPU nanoseconds per thread name (digits dropped, so a pool's threads add up) since {@code before}. */
    static Map<String, Long> threadCpuSince(Map<Long, long[]> before) {
        java.lang.management.ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        Map<String, Long> out = new HashMap<>();
        for (long id : mx.getAllThreadIds()) {
            long cpu = mx.getThreadCpuTime(id);
            java.lang.management.ThreadInfo info = mx.getThreadInfo(id);
            if (cpu < 0 || info == null) {
                continue;
            }
            long[] was = before.get(id);
            String name = info.getThreadName().replaceAll("[0-9a-f]{8}-[0-9a-f-]{27}", "<id>")
                    .replaceAll("[0-9]+", "N");
            out.merge(name, cpu - (was == null ? 0 : was[0]), Long::sum);
        }
        return out;
    }

    static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }

    private static volatile long peakHeap;

    /** Samples used heap every 10 ms: pools peak at different moments, so summing their peaks would overstate. */
    static void resetPeakHeap() {
        System.gc();
        peakHeap = 0;
        Thread sampler = new Thread(() -> {
            while (true) {
                long used = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
                if (used > peakHeap) {
                    peakHeap = used;
                }
                try {
                    Thread.sleep(10);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "heap-sampler");
        sampler.setDaemon(true);
        sampler.start();
    }

    static long peakHeap() {
        return peakHeap;
    }
}
