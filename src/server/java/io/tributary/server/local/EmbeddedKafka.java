package io.tributary.server.local;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import kafka.tools.StorageTool;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.utils.Time;

/**
 * A single-node Kafka broker in KRaft combined mode (broker and controller in one), running in this JVM. Local mode
 * uses it so one command runs everything on a bare machine; tests use it as their real broker.
 */
public final class EmbeddedKafka implements AutoCloseable {

    private final KafkaRaftServer server;
    private final int port;

    private EmbeddedKafka(KafkaRaftServer server, int port) {
        this.server = server;
        this.port = port;
    }

    /**
     * Starts a broker whose PLAINTEXT listener is on {@code 127.0.0.1:port} (0 picks a free port), keeping its logs
     * under {@code dataDir} (formatted on first use, reused after). {@code extraConfig} overrides or adds broker
     * settings, e.g. SASL or SSL listeners.
     */
    public static EmbeddedKafka start(Path dataDir, int port, Map<String, String> extraConfig) {
        int brokerPort = port == 0 ? freePort() : port;
        // Two free ports asked one after the other can be the same one (the first was released): seen in CI.
        int controllerPort = freePort();
        while (controllerPort == brokerPort) {
            controllerPort = freePort();
        }
        Map<String, String> config = new LinkedHashMap<>();
        config.put("process.roles", "broker,controller");
        config.put("node.id", "1");
        config.put("controller.quorum.voters", "1@127.0.0.1:" + controllerPort);
        config.put("listeners", "PLAINTEXT://127.0.0.1:" + brokerPort + ",CONTROLLER://127.0.0.1:" + controllerPort);
        config.put("advertised.listeners", "PLAINTEXT://127.0.0.1:" + brokerPort);
        config.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
        config.put("controller.listener.names", "CONTROLLER");
        config.put("inter.broker.listener.name", "PLAINTEXT");
        config.put("log.dirs", dataDir.resolve("logs").toString());
        config.put("offsets.topic.replication.factor", "1");
        config.put("offsets.topic.num.partitions", "4");
        config.put("transaction.state.log.replication.factor", "1");
        config.put("transaction.state.log.min.isr", "1");
        config.put("share.coordinator.state.topic.replication.factor", "1");
        config.put("share.coordinator.state.topic.min.isr", "1");
        config.put("group.initial.rebalance.delay.ms", "0");
        config.put("num.partitions", "1");
        config.put("auto.create.topics.enable", "false");
        config.put("log.flush.interval.messages", String.valueOf(Long.MAX_VALUE));
        config.put("log.segment.bytes", String.valueOf(64 * 1024 * 1024));
        // The log cleaner allocates its whole dedupe buffer on the heap when it starts (Kafka's default 128 MB), and
        // local mode's broker shares the server's heap: a quarter of a 512 MB heap gone before any record. The only
        // compacted topic here is the group coordinator's own, small one; 8 MB holds 300k keys.
        config.put("log.cleaner.dedupe.buffer.size", String.valueOf(8 * 1024 * 1024));
        config.putAll(extraConfig);
        // The controller port changes on every start, so the voter set must be rewritten; the formatted metadata
        // log only records the cluster id, which is kept in meta.properties and reused.
        Properties props = new Properties();
        props.putAll(config);
        try {
            Files.createDirectories(dataDir);
            Path configFile = dataDir.resolve("server.properties");
            try (OutputStream out = Files.newOutputStream(configFile)) {
                props.store(out, "embedded Kafka");
            }
            if (!Files.exists(dataDir.resolve("logs").resolve("meta.properties"))) {
                int rc = StorageTool.execute(
                        new String[] {"format", "-t", Uuid.randomUuid().toString(), "-c", configFile.toString(),
                            "--ignore-formatted"},
                        new PrintStream(OutputStream.nullOutputStream()));
                if (rc != 0) {
                    throw new IllegalStateException("formatting the embedded Kafka log directory failed: " + rc);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        KafkaRaftServer server = new KafkaRaftServer(KafkaConfig.fromProps(props, false), Time.SYSTEM);
        server.startup();
        return new EmbeddedKafka(server, brokerPort);
    }

    public String bootstrapServers() {
        return "127.0.0.1:" + port;
    }

    public int port() {
        return port;
    }

    @Override
    public void close() {
        server.shutdown();
        server.awaitShutdown();
    }

    static int freePort() {
        try (ServerSocket s = new ServerSocket(0)) {
            s.setReuseAddress(true);
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
