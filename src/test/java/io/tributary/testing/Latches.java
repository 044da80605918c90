package io.tributary.testing;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/** Latches that hold a writer at a point of the test's choosing. */
public final class Latches {
    private Latches() {}

    /** Waits for the test to release {@code latch}; a test that never does fails the writer after a minute. */
    public static void awaitRelease(CountDownLatch latch) {
        try {
            if (!latch.await(60, TimeUnit.SECONDS)) {
                throw new IllegalStateException("the test never resumed the writer");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
