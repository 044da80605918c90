package io.tributary.server;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tributary.delta.Tables;
import io.tributary.ingest.PipelineSpec;
import io.tributary.ingest.Subscription;
import io.tributary.schema.SchemaSource;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Paths;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.clients.consumer.KafkaConsumer;

/**
 * One server's ingestion in a child JVM, for tests that run several servers on one warehouse and kill one with
 * SIGKILL: the server's own {@link ServerPipelines} with the default ingestion settings, its {@link IdleWatch}, and a
 * pipeline that subscribes with the stream's consumer group, as the registry starts it on every server. Arguments:
 * bootstrap servers, warehouse, table location, topic. It prints {@code ready} once up, starts its pipelines when it
 * reads a line on stdin, then every 100 ms prints {@code committed N}, the records this process committed so far.
 */
public final class ServerProcess {

    static final String STREAM_ID = "id-multi";

    public static void main(String[] args) throws Exception {
        Tables tables = Tables.forWarehouse(args[1], Optional.empty());
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        // The lifecycle channel and the registry's write fence only matter for API calls and deletes; this server is
        // handed its stream directly and nothing deletes it.
        ServerPipelines pipelines = new ServerPipelines(DEFAULTS, new TableIngesters(tables), registry, null);
        PipelineSpec spec = new PipelineSpec(STREAM_ID, "main.test.multi", args[2],
                new Subscription.Topics(List.of(args[3])), Map.of("bootstrap.servers", args[0]),
                new SchemaSource.Plain(), new SchemaSource.JsonSchema(PipelineProcess.JSON_SCHEMA), Instant.now());
        // Up like a server whose other work is running: the table's and Kafka's classes loaded, the broker reached.
        tables.open(args[2]).positions();
        try (KafkaConsumer<byte[], byte[]> probe = KafkaConsumers.create(spec, PipelineSettings.of(DEFAULTS))) {
            probe.listTopics(Duration.ofSeconds(30));
        }
        System.out.println("ready");
        // The test decides when each server's pipelines start: "go" on stdin. Without a test left, stop.
        if (new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine() == null) {
            System.exit(1);
        }
        pipelines.startHere(spec);
        System.out.println("server started");
        while (!System.out.checkError()) {
            Counter records = registry.find("tributary.ingest.records").counter();
            System.out.println("committed " + (records == null ? 0 : (long) records.count()));
            Thread.sleep(100);
        }
        System.exit(1);
    }

    /** Starts a server; its output (the {@code committed} lines and its log) comes on the process's stdout. */
    static Process spawn(String bootstrap, String warehouse, String location, String topic) {
        List<String> cmd = new ArrayList<>();
        cmd.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("-Xmx384m");
        cmd.add("--add-opens=java.base/java.nio=ALL-UNNAMED");
        cmd.add("--add-opens=java.base/sun.nio.ch=ALL-UNNAMED");
        // JBoss LogManager prints nothing outside Quarkus: log through plain JUL (INFO and up to stderr).
        cmd.add("-Dorg.jboss.logging.provider=jdk");
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(ServerProcess.class.getName());
        cmd.addAll(List.of(bootstrap, warehouse, location, topic));
        try {
            return new ProcessBuilder(cmd).redirectErrorStream(true).start();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The server's defaults (SPEC 6), as Quarkus would map them with no environment set. */
    private static final IngestConfig DEFAULTS = new IngestConfig() {
        @Override
        public Duration triggerInterval() {
            return Duration.ofSeconds(1);
        }

        @Override
        public int maxBatchRecords() {
            return 100_000;
        }

        @Override
        public Long maxBatchBytes() {
            return 64L << 20;
        }

        @Override
        public Duration topicRefresh() {
            return Duration.ofSeconds(30);
        }

        @Override
        public Duration idleTimeout() {
            return Duration.ofSeconds(60);
        }

        @Override
        public Duration sessionTimeout() {
            return PipelineSettings.SESSION_TIMEOUT;
        }

        @Override
        public java.util.Optional<Long> maxMemory() {
            return java.util.Optional.empty();
        }

        @Override
        public Duration maxStaleness() {
            return PipelineSettings.MAX_STALENESS;
        }
    };
}
