package io.tributary.ingest;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The bytes of Kafka records that the pipelines of one process hold at once (batches being collected, waiting for
 * the writer and being written), against one limit for all of them. A batch closes early when the pipelines together
 * hold the limit, so what they hold is bounded whatever the number of streams and the size of their records.
 *
 * <p>Why a shared limit and not only each batch's {@code max-batch-bytes}: a batch's records take several times their
 * size while written (the records, their decoded values, the Parquet pages, the file), and each stream may hold two
 * batches. A 512 MB server ran out of heap on one stream of 300 kB records (64 MB batches), and on three streams of
 * 10 kB records catching up at once; the error failed the batch, the stream retried the same batch, and failed again.
 *
 * <p>A batch with nothing in it always takes what one poll brings, so every stream makes progress even when others
 * hold the whole limit.
 */
public final class BatchMemory {
    /** The share of the heap the pipelines' records may take by default (see the class comment for the factor). */
    public static final int HEAP_FRACTION = 10;
    /** The least default limit, for very small heaps. */
    static final long MIN_DEFAULT = 8L << 20;

    private final long limit;
    private final AtomicLong held = new AtomicLong();

    public BatchMemory(long limit) {
        if (limit <= 0) {
            throw new IllegalArgumentException("the pipelines' memory limit must be positive, not " + limit);
        }
        this.limit = limit;
    }

    /** A tenth of the largest heap this JVM may have ({@code -Xmx}), at least {@value #MIN_DEFAULT} bytes. */
    public static long defaultLimit() {
        return defaultLimit(Runtime.getRuntime().maxMemory());
    }

    static long defaultLimit(long maxHeap) {
        return Math.max(MIN_DEFAULT, maxHeap / HEAP_FRACTION);
    }

    public long limit() {
        return limit;
    }

    /** The bytes held now, by every pipeline of the process. */
    public long held() {
        return held.get();
    }

    /** The pipelines hold the limit or more: a batch with records in it closes now. */
    public boolean full() {
        return held.get() >= limit;
    }

    public void take(long bytes) {
        held.addAndGet(bytes);
    }

    public void release(long bytes) {
        held.addAndGet(-bytes);
    }
}
