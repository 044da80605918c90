package io.tributary.server;

import io.tributary.delta.PartitionKey;
import io.tributary.delta.Tables;
import io.tributary.ingest.MicroBatch;
import io.tributary.ingest.OpenedIngester;
import io.tributary.ingest.PipelineSpec;
import io.tributary.ingest.SourceRecord;
import io.tributary.ingest.Subscription;
import io.tributary.schema.SchemaSource;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;

/**
 * The writer step alone (filter, decode JSON, write Parquet, commit) on batches of the ingest bench's records, without
 * Kafka: wall time and the CPU time of every thread of this JVM per record, so that changes can be compared on a
 * machine shared with other work. Usage: {@code WriterBench [batches] [records-per-batch]}.
 */
public final class WriterBench {

    public static void main(String[] args) throws Exception {
        int batches = args.length > 0 ? Integer.parseInt(args[0]) : 30;
        int perBatch = args.length > 1 ? Integer.parseInt(args[1]) : 100_000;
        for (String name : List.of("org.apache.parquet", "io.delta", "org.apache.hadoop")) {
            java.util.logging.Logger.getLogger(name).setLevel(java.util.logging.Level.SEVERE);
        }
        Path warehouse = Files.createTempDirectory("writer-bench");
        Tables tables = Tables.forWarehouse(warehouse.toString(), Optional.empty());
        Map<PartitionKey, Long> start = new HashMap<>();
        for (int p = 0; p < 6; p++) {
            start.put(new PartitionKey("bench", p), 0L);
        }
        PipelineSpec spec = KafkaStreamFixture.create(tables, "writer_bench", new Subscription.Topics(List.of("bench")),
                new SchemaSource.Plain(), new SchemaSource.JsonSchema(IngestBench.JSON_SCHEMA), start, Map.of());
        OpenedIngester opened = OpenedIngester.open(tables, spec);
        Random random = new Random(1);
        long[] next = new long[6];
        long i = 0;
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        int warm = Math.min(10, batches / 3);
        long wall = 0;
        long cpu = 0;
        long rows = 0;
        long alloc = 0;
        long gc = 0;
        for (int b = 0; b < batches; b++) {
            MicroBatch.Builder builder = MicroBatch.builder();
            for (int r = 0; r < perBatch; r++, i++) {
                int p = (int) (i % 6);
                builder.add(new SourceRecord("bench", p, next[p]++, System.currentTimeMillis(), null,
                        IngestBench.record(i, random)));
            }
            MicroBatch batch = builder.build();
            long cpuBefore = totalCpu(threads);
            long allocBefore = ((com.sun.management.ThreadMXBean) threads).getCurrentThreadAllocatedBytes();
            long gcBefore = gcMillis();
            long started = System.nanoTime();
            opened.ingester().ingest(batch).orElseThrow();
            long took = System.nanoTime() - started;
            long cpuTook = totalCpu(threads) - cpuBefore;
            long allocTook = ((com.sun.management.ThreadMXBean) threads).getCurrentThreadAllocatedBytes() - allocBefore;
            long gcTook = gcMillis() - gcBefore;
            if (b >= warm) {
                alloc += allocTook;
                gc += gcTook;
                wall += took;
                cpu += cpuTook;
                rows += perBatch;
            }
        }
        System.out.printf("writer step: %,d rows in %d batches: %,.0f rows/s wall, %.0f ns CPU per row (whole process)%n",
                rows, batches - warm, rows / (wall / 1e9), (double) cpu / rows);
        System.out.printf("allocated %.0f bytes per row on the ingesting thread; GC %d ms of %d ms%n",
                (double) alloc / rows, gc, wall / 1_000_000);
    }

    private static long gcMillis() {
        long sum = 0;
        for (var gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            sum += Math.max(0, gc.getCollectionTime());
        }
        return sum;
    }

    /** The process's CPU time, so that garbage collection and JIT threads count too. */
    private static long totalCpu(ThreadMXBean threads) {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }
}
