package io.tributary.backfill;

import io.tributary.delta.DeltaTable;
import io.tributary.delta.OffsetRange;
import io.tributary.delta.PartitionKey;
import io.tributary.delta.TableRows;
import io.tributary.delta.Tables;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.avro.generic.GenericRecord;

/**
 * bench/backfill/run.sh: merges N backfill rows into N ingested rows sharing 10% of their keys
 * (value.transaction_id), and compares the merge's time with reading both tables once (the least any merge must
 * do). Heap is sampled every 20 ms. Not a test: run by the script with a fixed -Xmx.
 */
final class BackfillBench {
    /**
     * Outside Quarkus every logger is left at DEBUG, and parquet-mr then formats a debug line for every value it
     * writes or reads (several times slower). Held here so the levels are not collected.
     */
    private static final List<org.jboss.logmanager.Logger> QUIET = new ArrayList<>();

    private BackfillBench() {}

    public static void main(String[] args) throws Exception {
        for (String name : List.of("org.apache.parquet", "io.delta", "org.apache.hadoop")) {
            // slf4j is bound to JBoss LogManager here, whose loggers are not JUL's unless it is the JUL manager.
            org.jboss.logmanager.Logger logger = org.jboss.logmanager.LogContext.getLogContext().getLogger(name);
            logger.setLevel(java.util.logging.Level.WARNING);
            QUIET.add(logger);
        }
        int n = Integer.parseInt(args[0]);
        Path dir = Files.createTempDirectory("tributary-backfill-bench");
        Tables tables = Tables.forWarehouse(dir.toString(), Optional.empty());
        String ingestion = tables.defaultLocation("bench", "s", "ingestion");
        String source = tables.defaultLocation("bench", "s", "history");
        long t0 = System.nanoTime();
        write(tables, ingestion, n, 0);
        // Backfill ids start at 0.9 n: the first 10% of them are the last 10% of the ingested ids.
        write(tables, source, n, n - n / 10);
        System.out.printf("setup: wrote 2 x %,d rows in %.1f s%n", n, secs(t0));

        HeapSampler heap = new HeapSampler();
        heap.start();
        long b0 = System.nanoTime();
        long read = count(tables, ingestion) + count(tables, source);
        double baseline = secs(b0);
        long baselineHeap = heap.peakAndReset();

        Instant created = Instant.parse("2026-01-01T00:00:00Z");
        Backfill backfill = new Backfill(tables, BackfillSettings.defaults(), Clock.fixed(created.plus(Duration.ofDays(3)), ZoneOffset.UTC));
        long m0 = System.nanoTime();
        BackfillStatus status = backfill.run(new BackfillJob(ingestion, source, List.of("value.transaction_id"), created));
        double merge = secs(m0);
        long mergeHeap = heap.peakAndReset();
        heap.interrupt();

        long expected = n - n / 10;
        System.out.printf("baseline: read %,d rows of both tables in %.2f s (peak heap %d MB)%n", read, baseline, baselineHeap >> 20);
        System.out.printf("merge: %s, %,d rows merged (expected %,d) in %.2f s (peak heap %d MB, -Xmx %d MB)%n",
                status.state(), status.rowsMerged(), expected, merge, mergeHeap >> 20, Runtime.getRuntime().maxMemory() >> 20);
        System.out.printf("ratio merge/baseline: %.2f%n", merge / baseline);
        if (status.state() != BackfillState.COMPLETED || status.rowsMerged() != expected) {
            System.out.println("FAILED: " + status);
            System.exit(1);
        }
        long total = count(tables, ingestion);
        System.out.printf("ingestion table now has %,d rows (expected %,d)%n", total, n + expected);
        if (total != n + expected) {
            System.exit(1);
        }
    }

    private static void write(Tables tables, String location, int n, int firstId) {
        DeltaTable table = BackfillFixtures.createIngestion(tables, location, BackfillFixtures.TX_STREAM);
        int batch = 250_000;
        for (int from = 0; from < n; from += batch) {
            List<GenericRecord> rows = new ArrayList<>(batch);
            for (int i = from; i < Math.min(n, from + batch); i++) {
                int id = firstId + i;
                rows.add(BackfillFixtures.txRow("key-" + id, "tx-" + id, (long) id,
                        BackfillFixtures.BASE.plusMillis(id), i));
            }
            table.commit(List.of(table.writeDataFile(rows)),
                    Map.of(BackfillFixtures.P0, new OffsetRange(from, from + rows.size())));
        }
    }

    private static long count(Tables tables, String location) {
        long rows = 0;
        try (TableRows it = tables.read(location)) {
            while (it.hasNext()) {
                it.next();
                rows++;
            }
        }
        return rows;
    }

    private static double secs(long since) {
        return (System.nanoTime() - since) / 1e9;
    }

    private static final class HeapSampler extends Thread {
        private final MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        private final AtomicLong peak = new AtomicLong();

        HeapSampler() {
            setDaemon(true);
        }

        long peakAndReset() {
            return peak.getAndSet(0);
        }

        @Override
        public void run() {
            while (!isInterrupted()) {
                peak.accumulateAndGet(memory.getHeapMemoryUsage().getUsed(), Math::max);
                try {
                    Thread.sleep(20);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }
    }
}
