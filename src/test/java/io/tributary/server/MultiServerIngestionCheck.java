package io.tributary.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.tributary.delta.PartitionKey;
import io.tributary.delta.Tables;
import io.tributary.server.local.EmbeddedKafka;
import io.tributary.schema.SchemaSource;
import io.tributary.schema.SideSchema;
import io.tributary.schema.StreamSchema;
import io.tributary.testing.KafkaTestSupport;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.common.TopicPartition;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Several servers on one warehouse share a stream through its consumer group: three server processes
 * ({@link ServerProcess}, each with its own pipelines, idle watch and consumer) ingest a 6-partition topic under a
 * steady flow of 3,000 records/s. Two join a group the first already consumes; each must get its share of the
 * partitions and commit while all three run. Then one is killed with SIGKILL for good: the others must take over its
 * partitions within the group's session timeout, seeking to the table's positions, and the table, read with Kernel's
 * scan, holds exactly the produced records: no gap, no duplicate.
 *
 * <p>Not part of {@code ./mvnw verify} (its name is not a test's): four JVMs and 300k–450k records take minutes on a
 * 2-core machine. {@code bench/multi-server/run.sh} runs it.
 */
class MultiServerIngestionCheck {

    private static final String TOPIC = "multi";
    private static final int PARTITIONS = 6;
    private static final int SERVERS = 3;
    private static final int PER_SECOND = 3_000;
    /**
     * Joining servers: how soon the group spreads the partitions over them, and then how soon each commits (a seek to
     * the table's positions and a batch), with room for a loaded machine.
     */
    private static final Duration FIRST_COMMIT = Duration.ofSeconds(90);
    /** A child JVM's start, and the first server's first pipeline start, on a machine other builds share. */
    private static final Duration STARTUP = Duration.ofSeconds(150);
    /**
     * A killed server's partitions must belong to the others within this of the kill: the session timeout
     * ({@link PipelineSettings#SESSION_TIMEOUT}) and a rebalance, with room for a loaded machine. Kafka's own session
     * timeout, 45 s, is a floor no load can lower: a group that kept it fails here.
     */
    private static final Duration TAKEOVER = Duration.ofSeconds(40);

    @TempDir
    Path dir;

    @Test
    void serversShareTheStreamAndTheSurvivorsTakeOverAKilledOnesPartitions() throws Exception {
        // A production broker delays a new group's first rebalance by 3 s; keep that, it is part of the start.
        try (EmbeddedKafka kafka = EmbeddedKafka.start(dir.resolve("kafka"), 0,
                Map.of("group.initial.rebalance.delay.ms", "3000"));
                KafkaTestSupport topics = new KafkaTestSupport(kafka.bootstrapServers());
                Admin admin = Admin.create(Map.of("bootstrap.servers", kafka.bootstrapServers()))) {
            topics.createTopic(TOPIC, PARTITIONS);
            String warehouse = dir.resolve("warehouse").toString();
            Tables tables = Tables.forWarehouse(warehouse, Optional.empty());
            String location = tables.defaultLocation("main", "test", "multi");
            StreamSchema schema = StreamSchema.of(SideSchema.compile(new SchemaSource.Plain(), "key_schema"),
                    SideSchema.compile(new SchemaSource.JsonSchema(PipelineProcess.JSON_SCHEMA), "payload_schema"));
            tables.create(location, schema.rowSchema(), topics.endOffsets(TOPIC));

            List<Server> servers = new ArrayList<>();
            try {
                for (int i = 0; i < SERVERS; i++) {
                    servers.add(Server.start(kafka.bootstrapServers(), warehouse, location));
                }
                run(servers, topics, admin, tables, location);
            } finally {
                servers.forEach(Server::kill);
            }
        }
    }

    private static void run(List<Server> servers, KafkaTestSupport topics, Admin admin, Tables tables, String location)
            throws Exception {
        awaitAll(servers, STARTUP, () -> servers.stream().allMatch(s -> s.ready), "every server up");
        AtomicLong produced = new AtomicLong();
        AtomicBoolean producing = new AtomicBoolean(true);
        Thread producer = new Thread(() -> produce(topics, produced, producing), "multi-test-producer");
        producer.start();
        try {
            Server first = servers.get(0);
            first.go();
            awaitAll(servers, STARTUP, () -> first.firstCommitNanos != 0, "first commit of the first server");
            // The others join a group that is already consuming, as a server started later or restarted does.
            servers.subList(1, SERVERS).forEach(Server::go);
            long joined = System.nanoTime();
            awaitAll(servers, FIRST_COMMIT, () -> spread(admin), "the partitions spread over every server");
            long spread = System.nanoTime();
            awaitAll(servers, FIRST_COMMIT, () -> servers.stream().allMatch(s -> s.firstCommitNanos != 0),
                    "commit by every server");
            System.out.printf("partitions spread %.1f s after two servers joined, each of them committed %.1f s"
                    + " after that%n", (spread - joined) / 1e9, (System.nanoTime() - spread) / 1e9);
            Server victim = servers.get(1);
            long before = victim.committed.get();
            victim.kill();
            long killed = System.nanoTime();
            // The group drops the dead member and gives its partitions to the survivors; the table check at the end
            // shows that they went on from the table's positions.
            awaitAll(servers, TAKEOVER, () -> takenOver(admin, SERVERS - 1),
                    "takeover of the killed server's partitions");
            System.out.printf("killed a server after it committed %d records; the others held all partitions %.1f s"
                    + " later%n", before, (System.nanoTime() - killed) / 1e9);
        } finally {
            producing.set(false);
            producer.join();
        }
        topics.flush();
        Map<PartitionKey, Long> end = topics.endOffsets(TOPIC);
        assertThat(end.values().stream().mapToLong(Long::longValue).sum()).isEqualTo(produced.get());
        awaitAll(servers, STARTUP, () -> tables.open(location).positions().equals(end),
                "the table at the end offsets " + end);
        servers.forEach(Server::kill);
        List<Map<String, Object>> rows = KafkaTestSupport.rows(tables, location);
        List<String> expected = new ArrayList<>();
        for (int p = 0; p < PARTITIONS; p++) {
            for (long o = 0; o < end.get(new PartitionKey(TOPIC, p)); o++) {
                expected.add(TOPIC + "/" + p + "/" + o);
            }
        }
        assertThat(KafkaTestSupport.coordinates(rows)).containsExactlyElementsOf(expected);
        assertThat(rows.stream().map(r -> (Long) ((Map<?, ?>) r.get("value")).get("id")).sorted().toList())
                .containsExactlyElementsOf(Stream.iterate(0L, i -> i + 1).limit(produced.get()).toList());
        System.out.printf("%d records, committed by the servers: %s%n", produced.get(),
                servers.stream().map(s -> s.committed.get()).toList());
    }

    /** Waits for the condition; a timeout names it and shows what every live server logged. */
    private static void awaitAll(List<Server> servers, Duration within, Callable<Boolean> condition, String what) {
        try {
            await().atMost(within).pollInterval(Duration.ofMillis(100))
                    .failFast(() -> servers.stream().filter(s -> !s.killed).forEach(Server::alive)).until(condition);
        } catch (ConditionTimeoutException e) {
            StringBuilder logs = new StringBuilder();
            for (int i = 0; i < servers.size(); i++) {
                Server server = servers.get(i);
                logs.append("\n--- server ").append(i).append(server.process.isAlive() ? "" : " (dead)")
                        .append(", committed ").append(server.committed.get()).append(":\n").append(server.log());
            }
            throw new AssertionError("no " + what + " within " + within + logs, e);
        }
    }

    /** Whether the stream's group has every server as a member, each holding an equal share of the partitions. */
    private static boolean spread(Admin admin) throws Exception {
        ConsumerGroupDescription group = group(admin);
        return group.members().size() == SERVERS && group.members().stream()
                .allMatch(m -> m.assignment().topicPartitions().size() == PARTITIONS / SERVERS);
    }

    /** Whether the group has exactly {@code members} members and every partition is assigned to one of them. */
    private static boolean takenOver(Admin admin, int members) throws Exception {
        ConsumerGroupDescription group = group(admin);
        Set<TopicPartition> assigned = new HashSet<>();
        group.members().forEach(m -> assigned.addAll(m.assignment().topicPartitions()));
        return group.members().size() == members && assigned.size() == PARTITIONS;
    }

    private static ConsumerGroupDescription group(Admin admin) throws Exception {
        return admin.describeConsumerGroups(List.of("tributary-" + ServerProcess.STREAM_ID)).all().get().values()
                .iterator().next();
    }

    private static void produce(KafkaTestSupport topics, AtomicLong produced, AtomicBoolean producing) {
        long started = System.nanoTime();
        for (long i = 0; producing.get(); i++) {
            long wait = started + i * 1_000_000_000L / PER_SECOND - System.nanoTime();
            if (wait > 0) {
                try {
                    TimeUnit.NANOSECONDS.sleep(wait);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
            String value = "{\"id\":" + i + ",\"name\":\"n" + i + "\"}";
            topics.send(TOPIC, (int) (i % PARTITIONS), ("k" + i).getBytes(StandardCharsets.UTF_8),
                    value.getBytes(StandardCharsets.UTF_8));
            produced.set(i + 1);
        }
    }

    /** A server process, with what it printed: its committed count and the tail of its log. */
    private static final class Server {
        final Process process;
        final AtomicLong committed = new AtomicLong();
        final Deque<String> tail = new ArrayDeque<>();
        volatile long firstCommitNanos;
        volatile boolean ready;
        volatile boolean killed;

        private Server(Process process) {
            this.process = process;
            Thread reader = new Thread(this::read, "multi-test-server-output");
            reader.setDaemon(true);
            reader.start();
        }

        static Server start(String bootstrap, String warehouse, String location) {
            return new Server(ServerProcess.spawn(bootstrap, warehouse, location, TOPIC));
        }

        private void read() {
            try (BufferedReader in = new BufferedReader(
                    new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line; (line = in.readLine()) != null; ) {
                    if (line.startsWith("committed ")) {
                        long n = Long.parseLong(line.substring("committed ".length()));
                        if (n > 0 && firstCommitNanos == 0) {
                            firstCommitNanos = System.nanoTime();
                        }
                        committed.set(n);
                        continue;
                    }
                    if (line.equals("ready")) {
                        ready = true;
                    }
                    synchronized (tail) {
                        tail.addLast(line);
                        if (tail.size() > 400) {
                            tail.removeFirst();
                        }
                    }
                }
            } catch (IOException e) {
                // The process is gone.
            }
        }

        /** Starts the server's pipelines. */
        void go() {
            try {
                process.getOutputStream().write("go\n".getBytes(StandardCharsets.UTF_8));
                process.getOutputStream().flush();
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }

        void alive() {
            if (!process.isAlive()) {
                throw new AssertionError("the server process died; its log:\n" + log());
            }
        }


        void kill() {
            killed = true;
            process.destroyForcibly();
            try {
                process.waitFor();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        String log() {
            synchronized (tail) {
                return String.join("\n", tail);
            }
        }
    }
}
