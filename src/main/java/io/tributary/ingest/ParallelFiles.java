package io.tributary.ingest;

import io.tributary.delta.DataFile;
import io.tributary.delta.TableWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Writes the data files of one batch at once. The calling thread writes files itself and idle helper threads (one
 * pool for the process, one thread per spare core) take the others, so a batch never waits for a helper that streams
 * of other tables keep busy: what no helper has claimed, the caller writes.
 */
final class ParallelFiles {

    private static final int CORES = Runtime.getRuntime().availableProcessors();
    private static final ExecutorService HELPERS = CORES < 2 ? null : Executors.newFixedThreadPool(CORES - 1,
            new java.util.concurrent.ThreadFactory() {
                private final AtomicInteger count = new AtomicInteger();

                @Override
                public Thread newThread(Runnable r) {
                    Thread t = new Thread(r, "tributary-file-writer-" + count.incrementAndGet());
                    t.setDaemon(true);
                    return t;
                }
            });

    private ParallelFiles() {}

    /**
     * How many files of one batch are worth writing at once on this machine; the system property
     * {@code tributary.ingest.parallel-files} overrides it (1 turns parallel files off, for comparisons).
     */
    static int parallelism() {
        return Math.max(1, Integer.getInteger("tributary.ingest.parallel-files", CORES));
    }

    /**
     * Whether data files are written by the rows themselves ({@link io.tributary.delta.RowSource}: no row object per
     * record, statistics from the Parquet footer) rather than as Avro rows through parquet-avro. The system property
     * {@code tributary.ingest.direct-write=false} turns it off, for comparisons; the files are the same.
     */
    static boolean directWrite() {
        return !"false".equals(System.getProperty("tributary.ingest.direct-write"));
    }

    private static DataFile writeOne(TableWriter table, Rows part) {
        return directWrite() ? table.writeRows(part) : table.writeDataFile(part);
    }

    /**
     * One data file per part, in the parts' order. Returns only when every write has ended, so the parts' decoders
     * are free again; the first failure is thrown then.
     */
    static List<DataFile> write(TableWriter table, List<Rows> parts) {
        if (parts.size() == 1 || HELPERS == null) {
            List<DataFile> files = new ArrayList<>(parts.size());
            try {
                for (Rows part : parts) {
                    files.add(writeOne(table, part));
                }
            } catch (RuntimeException | Error e) {
                table.discard(files);
                throw e;
            }
            return files;
        }
        int n = parts.size();
        DataFile[] files = new DataFile[n];
        Throwable[] failures = new Throwable[n];
        AtomicBoolean[] claimed = new AtomicBoolean[n];
        CountDownLatch done = new CountDownLatch(n);
        for (int i = 0; i < n; i++) {
            claimed[i] = new AtomicBoolean();
        }
        Runnable[] tasks = new Runnable[n];
        for (int i = 0; i < n; i++) {
            int index = i;
            tasks[i] = () -> {
                if (!claimed[index].compareAndSet(false, true)) {
                    return;
                }
                try {
                    files[index] = writeOne(table, parts.get(index));
                } catch (Throwable t) {
                    failures[index] = t;
                } finally {
                    done.countDown();
                }
            };
        }
        // The caller takes the first part at once; helpers are offered the rest, and the caller then claims whatever
        // they have not started.
        for (int i = 1; i < n; i++) {
            try {
                HELPERS.execute(tasks[i]);
            } catch (RejectedExecutionException e) {
                // Runs on the caller below.
            }
        }
        for (Runnable task : tasks) {
            task.run();
        }
        boolean interrupted = false;
        while (true) {
            try {
                done.await();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        for (Throwable failure : failures) {
            if (failure != null) {
                // Nobody will commit the others: remove them now rather than leave orphans (and, when the failure
                // was a delete removing the location, files under a deleted table).
                List<DataFile> written = new ArrayList<>();
                for (DataFile f : files) {
                    if (f != null) {
                        written.add(f);
                    }
                }
                table.discard(written);
            }
            if (failure instanceof RuntimeException e) {
                throw e;
            }
            if (failure instanceof Error e) {
                throw e;
            }
            if (failure != null) {
                throw new IllegalStateException(failure);
            }
        }
        return List.of(files);
    }
}
