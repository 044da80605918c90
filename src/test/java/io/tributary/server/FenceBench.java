package io.tributary.server;

import io.agroal.api.AgroalDataSource;
import io.agroal.api.configuration.supplier.AgroalPropertiesReader;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tributary.delta.PartitionKey;
import io.tributary.delta.Tables;
import io.tributary.delta.WriteGuard;
import io.tributary.ingest.PipelineSpec;
import io.tributary.ingest.Subscription;
import io.tributary.registry.lock.StreamWriteLocks;
import io.tributary.schema.SchemaSource;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * The write fence's cost, for {@code bench/ingest/run.sh} with {@code BENCH_FENCE=<rounds>}: the same catch-up of
 * the bench topic, alternately without and with every commit under {@link StreamWriteLocks} (a registry database of
 * its own, embedded PostgreSQL behind an Agroal pool as in the server), each on a fresh table; then the fence alone,
 * timed around each commit and in a loop of empty writes.
 */
final class FenceBench {

    private FenceBench() {}

    static void run(String bootstrap, String topic, int records, Tables tables, PipelineSettings settings,
            Map<PartitionKey, Long> fromStart, int rounds) throws Exception {
        Path dir = Files.createTempDirectory("tributary-bench-pg");
        try (EmbeddedPostgres pg = EmbeddedPostgres.builder().setDataDirectory(dir).start();
                AgroalDataSource database = AgroalDataSource.from(new AgroalPropertiesReader().readProperties(Map.of(
                        AgroalPropertiesReader.JDBC_URL, pg.getJdbcUrl("postgres", "postgres"),
                        AgroalPropertiesReader.PRINCIPAL, "postgres", AgroalPropertiesReader.CREDENTIAL, "postgres",
                        AgroalPropertiesReader.MAX_SIZE, "4")).get())) {
            try (Connection c = database.getConnection(); Statement s = c.createStatement()) {
                s.execute("CREATE TABLE streams (id text PRIMARY KEY)");
            }
            StreamWriteLocks locks = new StreamWriteLocks(database);
            List<Double> unfenced = new ArrayList<>();
            List<Double> fenced = new ArrayList<>();
            TimedGuard.Totals totals = new TimedGuard.Totals();
            for (int round = 0; round < rounds; round++) {
                // Alternating which goes first spreads the machine's drift over both.
                for (boolean fence : round % 2 == 0 ? List.of(false, true) : List.of(true, false)) {
                    PipelineSpec spec = KafkaStreamFixture.create(tables, "fence_" + round + (fence ? "_on" : "_off"),
                            new Subscription.Topics(List.of(topic)), new SchemaSource.Plain(),
                            new SchemaSource.JsonSchema(IngestBench.JSON_SCHEMA), fromStart,
                            Map.of("bootstrap.servers", bootstrap));
                    register(database, spec.streamId());
                    TableIngesters ingesters = fence
                            ? new TableIngesters(tables, s -> new TimedGuard(
                                    locks.forStream(s.streamId(), s.tableLocation()), totals))
                            : new TableIngesters(tables);
                    double rate = catchUp(spec, settings, ingesters, records);
                    (fence ? fenced : unfenced).add(rate);
                    System.out.printf("  round %d %s: %,.0f records/s%n", round + 1, fence ? "fenced  " : "unfenced",
                            rate);
                }
            }
            double off = median(unfenced);
            double on = median(fenced);
            System.out.printf("catch-up without the write fence: median %,.0f records/s over %d runs%n", off, rounds);
            System.out.printf("catch-up with the write fence:    median %,.0f records/s over %d runs%n", on, rounds);
            System.out.printf("ratio fenced / unfenced: %.3f (goal: at least 0.95)%n", on / off);
            System.out.printf("fence per micro-batch commit (lock, check, release; the commit itself excluded): "
                    + "mean %.2f ms, max %.2f ms over %d commits%n", totals.meanMillis(), totals.maxMillis(),
                    totals.count.get());
            emptyWrites(locks, database);
        }
    }

    /** The fence around a write that does nothing: its whole cost, with no storage in between. */
    private static void emptyWrites(StreamWriteLocks locks, AgroalDataSource database) throws Exception {
        register(database, "fence-loop");
        WriteGuard guard = locks.forStream("fence-loop", "/bench/fence-loop");
        for (int i = 0; i < 500; i++) {
            guard.run(() -> Boolean.TRUE);
        }
        int n = 2000;
        long started = System.nanoTime();
        for (int i = 0; i < n; i++) {
            guard.run(() -> Boolean.TRUE);
        }
        System.out.printf("fence around an empty write: %.3f ms each (%d in a row)%n",
                (System.nanoTime() - started) / 1e6 / n, n);
    }

    private static double catchUp(PipelineSpec spec, PipelineSettings settings, TableIngesters ingesters, int records)
            throws InterruptedException {
        PipelineStatus status = new PipelineStatus();
        StreamPipeline pipeline = new StreamPipeline(spec, settings, ingesters, status,
                new PipelineMetrics(new SimpleMeterRegistry(), spec.streamName(), status));
        long started = System.nanoTime();
        pipeline.start();
        while (pipeline.status().rowsIngested() < records) {
            if (pipeline.status().state() == io.tributary.ingest.IngestionStatus.State.FAILED) {
                throw new IllegalStateException(pipeline.status().stateMessage());
            }
            Thread.sleep(20);
        }
        double seconds = (System.nanoTime() - started) / 1e9;
        pipeline.stop();
        return records / seconds;
    }

    private static void register(AgroalDataSource database, String streamId) throws Exception {
        try (Connection c = database.getConnection();
                PreparedStatement insert = c.prepareStatement("INSERT INTO streams (id) VALUES (?)")) {
            insert.setString(1, streamId);
            insert.executeUpdate();
        }
    }

    private static double median(List<Double> values) {
        List<Double> sorted = values.stream().sorted().toList();
        int n = sorted.size();
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }

    /** A guard that adds the time it spends outside the write to {@link Totals}. */
    private record TimedGuard(WriteGuard delegate, Totals totals) implements WriteGuard {
        static final class Totals {
            final AtomicLong count = new AtomicLong();
            final AtomicLong nanos = new AtomicLong();
            final AtomicLong max = new AtomicLong();

            double meanMillis() {
                return count.get() == 0 ? 0 : nanos.get() / 1e6 / count.get();
            }

            double maxMillis() {
                return max.get() / 1e6;
            }
        }

        @Override
        public <T> Optional<T> run(Supplier<T> write) {
            long[] inner = new long[1];
            long started = System.nanoTime();
            try {
                return delegate.run(() -> {
                    long s = System.nanoTime();
                    try {
                        return write.get();
                    } finally {
                        inner[0] = System.nanoTime() - s;
                    }
                });
            } finally {
                long fence = System.nanoTime() - started - inner[0];
                totals.count.incrementAndGet();
                totals.nanos.addAndGet(fence);
                totals.max.accumulateAndGet(fence, Math::max);
            }
        }
    }
}
