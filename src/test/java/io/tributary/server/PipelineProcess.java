package io.tributary.server;

import io.tributary.delta.Tables;
import io.tributary.ingest.PipelineSpec;
import io.tributary.ingest.Subscription;
import io.tributary.schema.SchemaSource;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One server pipeline alone in a child JVM, for tests that kill it with SIGKILL: no shutdown hook, no finally block,
 * nothing flushed. Arguments: bootstrap servers, warehouse, table location, topic, partition count. It assigns the
 * partitions (no consumer group to wait for after a kill) and runs until it is killed.
 */
public final class PipelineProcess {

    static final String JSON_SCHEMA = "{\"type\":\"object\",\"properties\":{\"id\":{\"type\":\"integer\"},"
            + "\"name\":{\"type\":\"string\"}}}";
    /** Batches large enough to be written as parallel files, triggers short enough for many commits. */
    static final PipelineSettings SETTINGS = new PipelineSettings(Duration.ofMillis(200), 60_000, 64L << 20,
            Duration.ofSeconds(5));

    public static void main(String[] args) throws Exception {
        Tables tables = Tables.forWarehouse(args[1], Optional.empty());
        PipelineSpec spec = spec(args[0], args[2], args[3], Integer.parseInt(args[4]));
        StreamPipeline pipeline = KafkaStreamFixture.pipeline(tables, spec, SETTINGS);
        pipeline.start();
        System.out.println("pipeline started");
        Thread.currentThread().join();
    }

    static PipelineSpec spec(String bootstrap, String location, String topic, int partitions) {
        List<Integer> all = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
            all.add(p);
        }
        return new PipelineSpec("id-crash", "main.test.crash", location,
                new Subscription.Assign(Map.of(topic, all)), Map.of("bootstrap.servers", bootstrap),
                new SchemaSource.Plain(), new SchemaSource.JsonSchema(JSON_SCHEMA), Instant.now());
    }

    static Process spawn(Path log, String bootstrap, String warehouse, String location, String topic,
            int partitions) {
        List<String> cmd = new ArrayList<>();
        cmd.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("-Xmx512m");
        cmd.add("-Djava.util.logging.manager=org.jboss.logmanager.LogManager");
        cmd.add("--add-opens=java.base/java.nio=ALL-UNNAMED");
        cmd.add("--add-opens=java.base/sun.nio.ch=ALL-UNNAMED");
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(PipelineProcess.class.getName());
        cmd.addAll(List.of(bootstrap, warehouse, location, topic, String.valueOf(partitions)));
        try {
            return new ProcessBuilder(cmd).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
