package io.tributary.server;

import java.util.Collection;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.jboss.logging.Logger;

/**
 * Keeps what GET reports of a stream in step with its table when others write the table too: another server's
 * pipeline (the consumer group splits the partitions), the backfill merge, the ingest function. A pipeline only sees
 * its own commits, so without this a server reports its share of the rows and positions that stopped when it lost
 * the partitions. One thread for the server; it reads the tables of streams whose status was asked for lately
 * ({@link #READ_WINDOW_NANOS}), at most every {@link #INTERVAL_NANOS} each, and only opens a table's full status when
 * the log has a version the pipeline did not write.
 */
final class StatusRefresh implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(StatusRefresh.class);
    static final long INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(5);
    /** Streams nobody looked at for this long are not refreshed: their tables are not read for nothing. */
    static final long READ_WINDOW_NANOS = TimeUnit.MINUTES.toNanos(2);
    /** One round reads tables for at most this long, so thousands of watched streams do not make a round endless. */
    private static final long ROUND_BUDGET_NANOS = TimeUnit.SECONDS.toNanos(2);

    private final Supplier<Collection<StreamPipeline>> pipelines;
    private final Object sleeper = new Object();
    private volatile Thread thread;
    private volatile boolean closed;

    StatusRefresh(Supplier<Collection<StreamPipeline>> pipelines) {
        this.pipelines = pipelines;
    }

    /** A status was read that may be behind its table: the next round comes now rather than at its time. */
    void wake() {
        startThread();
        synchronized (sleeper) {
            sleeper.notifyAll();
        }
    }

    private synchronized void startThread() {
        if (thread == null && !closed) {
            Thread t = new Thread(this::loop, "tributary-status-refresh");
            t.setDaemon(true);
            thread = t;
            t.start();
        }
    }

    private void loop() {
        while (!closed) {
            round(System.nanoTime());
            synchronized (sleeper) {
                try {
                    sleeper.wait(TimeUnit.NANOSECONDS.toMillis(INTERVAL_NANOS));
                } catch (InterruptedException e) {
                    return;
                }
            }
        }
    }

    void round(long now) {
        long deadline = now + ROUND_BUDGET_NANOS;
        for (StreamPipeline pipeline : pipelines.get()) {
            if (closed || System.nanoTime() > deadline) {
                return;
            }
            if (!pipeline.statusRefreshDue(now)) {
                continue;
            }
            try {
                pipeline.refreshStatusFromTable();
            } catch (RuntimeException e) {
                // The pipeline reports its own failures; a table this cannot read now is read again next round.
                LOG.debugf("refreshing the status of %s from its table failed: %s", pipeline.spec().streamName(), e);
            }
        }
    }

    @Override
    public void close() {
        closed = true;
        synchronized (sleeper) {
            sleeper.notifyAll();
        }
    }
}
