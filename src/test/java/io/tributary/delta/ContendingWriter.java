package io.tributary.delta;

import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;

/**
 * A writer that keeps committing batches of one partition the way the ingestion pipeline does: start where the table
 * says, and on a position conflict continue from the committed position. Runs in a thread or, through
 * {@link #main}, as a separate JVM process with its own engine and no lock shared with anyone.
 */
final class ContendingWriter implements Callable<Integer> {
    static final int BATCH = 5;

    private final DeltaTable table;
    private final PartitionKey partition;
    private final int commits;

    ContendingWriter(DeltaTable table, PartitionKey partition, int commits) {
        this.table = table;
        this.partition = partition;
        this.commits = commits;
    }

    /** @return how many position conflicts this writer met */
    @Override
    public Integer call() {
        int done = 0;
        int conflicts = 0;
        long from = table.positions().getOrDefault(partition, 0L);
        while (done < commits) {
            DataFile file = table.writeDataFile(TestRows.simple(partition.topic(), partition.partition(), from, from + BATCH));
            try {
                table.commit(List.of(file), Map.of(partition, new OffsetRange(from, from + BATCH)));
                done++;
                from += BATCH;
            } catch (PositionConflictException e) {
                conflicts++;
                from = e.committed().get(partition);
            }
        }
        return conflicts;
    }

    /** args: warehouse root, table location, topic, partition, commits, result file [, s3 endpoint] */
    public static void main(String[] args) throws IOException {
        Tables tables = Tables.forWarehouse(args[0], args.length > 6 ? Optional.of(args[6]) : Optional.empty());
        DeltaTable table = tables.open(args[1]);
        awaitGo(Paths.get(args[5] + ".ready"), Paths.get(System.getProperty("contending.go")));
        int conflicts = new ContendingWriter(table, new PartitionKey(args[2], Integer.parseInt(args[3])),
                Integer.parseInt(args[4])).call();
        Files.writeString(Paths.get(args[5]), Integer.toString(conflicts));
        System.exit(0);
    }

    /** Both processes start committing at the same moment, after their JVMs and engines are warm. */
    private static void awaitGo(Path ready, Path go) throws IOException {
        Files.writeString(ready, "ready");
        while (!Files.exists(go)) {
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                throw new IOException(e);
            }
        }
    }

    /** Waits until every child wrote its ready file, then lets them all go. */
    static void release(List<Path> results, Path go) throws Exception {
        await("every writer process ready").atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(50))
                .until(() -> results.stream().allMatch(r -> Files.exists(Paths.get(r + ".ready"))));
        Files.writeString(go, "go");
    }

    /** Starts {@link #main} in a child JVM; it waits for {@code go} to exist before writing. */
    static Process spawn(Path workDir, String name, List<String> args, List<String> jvmOptions, Path go) {
        try {
            List<String> cmd = new java.util.ArrayList<>();
            cmd.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
            cmd.add("-Xmx512m");
            cmd.addAll(jvmOptions);
            cmd.add("-Dcontending.go=" + go);
            cmd.add("-cp");
            cmd.add(System.getProperty("java.class.path"));
            cmd.add(ContendingWriter.class.getName());
            cmd.addAll(args);
            return new ProcessBuilder(cmd)
                    .redirectErrorStream(true)
                    .redirectOutput(workDir.resolve(name + ".log").toFile())
                    .start();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
