package io.tributary.delta;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Supplier;

/** The assertions shared by the local and S3 concurrency tests. */
final class ConcurrentWritersCheck {
    private ConcurrentWritersCheck() {}

    /**
     * Two writers, each with its own {@link Tables} (own engine, no shared lock), race on one partition and on one
     * partition each. Every commit that returned must be in the table exactly once and offsets must be contiguous.
     */
    static void twoEnginesRace(Supplier<Tables> newTables, String location) throws Exception {
        Tables first = newTables.get();
        Tables second = newTables.get();
        PartitionKey shared = new PartitionKey("shared", 0);
        PartitionKey own0 = new PartitionKey("own", 0);
        PartitionKey own1 = new PartitionKey("own", 1);
        first.create(location, TestRows.SIMPLE, Map.of(shared, 0L));
        int commits = 8;
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<Integer>> results = new ArrayList<>();
            results.add(pool.submit(new ContendingWriter(first.open(location), shared, commits)));
            results.add(pool.submit(new ContendingWriter(second.open(location), shared, commits)));
            results.add(pool.submit(new ContendingWriter(first.open(location), own0, commits)));
            results.add(pool.submit(new ContendingWriter(second.open(location), own1, commits)));
            List<Integer> conflicts = new ArrayList<>();
            for (Future<Integer> f : results) {
                conflicts.add(f.get());
            }
            // Writers of different partitions never conflict with each other: Kernel rebases their appends.
            assertThat(conflicts.get(2)).isZero();
            assertThat(conflicts.get(3)).isZero();
        } finally {
            pool.shutdownNow();
        }
        assertContiguous(first, location, Map.of(shared, 2L * commits * ContendingWriter.BATCH,
                own0, (long) commits * ContendingWriter.BATCH, own1, (long) commits * ContendingWriter.BATCH));
    }

    /** Every partition's rows are offsets 0..next-1, each exactly once, and the positions say next. */
    static void assertContiguous(Tables tables, String location, Map<PartitionKey, Long> expectedNext) {
        assertThat(tables.open(location).positions()).containsExactlyInAnyOrderEntriesOf(expectedNext);
        List<Map<String, Object>> rows = location.startsWith("s3://")
                ? TestRows.readAll(tables, location) : IndependentReader.rows(location);
        long total = expectedNext.values().stream().mapToLong(Long::longValue).sum();
        assertThat(rows).hasSize((int) total);
        for (Map.Entry<PartitionKey, Long> e : expectedNext.entrySet()) {
            Set<Long> offsets = new TreeSet<>();
            for (Map<String, Object> r : rows) {
                if (e.getKey().topic().equals(r.get("kafka_topic")) && r.get("kafka_partition").equals(e.getKey().partition())) {
                    assertThat(offsets.add((Long) r.get("kafka_offset"))).as("offset %s of %s appears once", r.get("kafka_offset"), e.getKey()).isTrue();
                    assertThat(r.get("value")).isEqualTo("value-" + e.getKey().topic() + "-" + e.getKey().partition() + "-" + r.get("kafka_offset"));
                }
            }
            assertThat(offsets).hasSize(e.getValue().intValue());
            assertThat(offsets).first().isEqualTo(0L);
            assertThat(offsets).last().isEqualTo(e.getValue() - 1);
        }
    }
}
