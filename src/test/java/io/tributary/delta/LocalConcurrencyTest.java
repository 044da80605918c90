package io.tributary.delta;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LocalConcurrencyTest {
    @TempDir
    Path dir;

    @Test
    void twoEnginesInOneJvmLoseNoCommit() throws Exception {
        String root = dir.resolve("warehouse").toString();
        ConcurrentWritersCheck.twoEnginesRace(() -> Tables.forWarehouse(root, Optional.empty()), root + "/c/s/race");
    }

    @Test
    void twoProcessesLoseNoCommit() throws Exception {
        String root = dir.resolve("warehouse").toString();
        Tables tables = Tables.forWarehouse(root, Optional.empty());
        String location = tables.defaultLocation("c", "s", "processes");
        PartitionKey shared = new PartitionKey("shared", 0);
        tables.create(location, TestRows.SIMPLE, Map.of(shared, 0L));
        int commits = 12;
        Process a = ContendingWriter.spawn(dir, "a", List.of(root, location, "shared", "0", "" + commits, dir.resolve("a.result").toString()), List.of(), dir.resolve("go"));
        Process b = ContendingWriter.spawn(dir, "b", List.of(root, location, "shared", "0", "" + commits, dir.resolve("b.result").toString()), List.of(), dir.resolve("go"));
        ContendingWriter.release(List.of(dir.resolve("a.result"), dir.resolve("b.result")), dir.resolve("go"));
        assertThat(a.waitFor(3, TimeUnit.MINUTES)).isTrue();
        assertThat(b.waitFor(3, TimeUnit.MINUTES)).isTrue();
        assertThat(a.exitValue()).as(Files.readString(dir.resolve("a.log"))).isZero();
        assertThat(b.exitValue()).as(Files.readString(dir.resolve("b.log"))).isZero();

        ConcurrentWritersCheck.assertContiguous(tables, location, Map.of(shared, 2L * commits * ContendingWriter.BATCH));
        System.out.printf("two processes: %s + %s position conflicts%n",
                Files.readString(dir.resolve("a.result")), Files.readString(dir.resolve("b.result")));
    }

    @Test
    void twoCreatorsOneTable() throws Exception {
        String root = dir.resolve("warehouse").toString();
        String location = root + "/c/s/created-twice";
        java.util.concurrent.CyclicBarrier start = new java.util.concurrent.CyclicBarrier(2);
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(2);
        try {
            List<java.util.concurrent.Future<String>> outcomes = new java.util.ArrayList<>();
            for (int i = 0; i < 2; i++) {
                long next = i;
                outcomes.add(pool.submit(() -> {
                    Tables tables = Tables.forWarehouse(root, Optional.empty());
                    start.await();
                    try {
                        tables.create(location, TestRows.SIMPLE, Map.of(new PartitionKey("t", 0), next));
                        return "created";
                    } catch (TableExistsException e) {
                        return "exists";
                    }
                }));
            }
            List<String> results = new java.util.ArrayList<>();
            for (var f : outcomes) {
                results.add(f.get());
            }
            assertThat(results).containsExactlyInAnyOrder("created", "exists");
        } finally {
            pool.shutdownNow();
        }
        assertThat(IndependentReader.version(location)).isZero();
    }
}
