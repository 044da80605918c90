package io.tributary.registry.service;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

class ExpiringCacheTest {
    // Long enough that a loaded machine (a CI run beside it) does not expire an entry between two steps.
    private static final Duration TTL = Duration.ofMillis(2000);

    private static <V> V get(ExpiringCache<String, V> cache, Supplier<V> load) {
        return cache.get("k", load).await().atMost(Duration.ofSeconds(5));
    }

    @Test
    void anEntryPastHalfItsTimeIsReadAgainBehindTheCallersWhoKeepGettingIt() throws Exception {
        ExpiringCache<String, Integer> cache = new ExpiringCache<>(TTL);
        AtomicInteger loads = new AtomicInteger();
        CountDownLatch release = new CountDownLatch(1);
        Supplier<Integer> load = countingLoads(loads, release);
        assertEquals(1, get(cache, load));
        long firstLoaded = System.nanoTime();
        // Well past half its time (not just past it), so that the reload's own half-time, counted from when the
        // reload began, ends well after the first read's time runs out: the window checked below.
        Thread.sleep(TTL.toMillis() * 7 / 10);
        long reloadBegins = System.nanoTime();
        // Past half its time: answered from the entry at once while the reload (held by the latch) runs.
        assertEquals(1, get(cache, load));
        assertEquals(1, get(cache, load));
        assertTrue(System.nanoTime() - reloadBegins < TimeUnit.MILLISECONDS.toNanos(1000), "callers waited for the reload");
        waitFor(() -> loads.get() == 2);
        release.countDown();
        waitFor(() -> get(cache, load) == 2);
        // The first read's time has run out now, yet the reload's has not: no caller waits for a third read.
        long firstExpired = firstLoaded + TTL.toNanos() + TimeUnit.MILLISECONDS.toNanos(50);
        Thread.sleep(Math.max(0, TimeUnit.NANOSECONDS.toMillis(firstExpired - System.nanoTime())));
        // On a starved machine the reload itself may be past half its time by now (counted from when it began), and
        // read again rightly.
        org.junit.jupiter.api.Assumptions.assumeTrue(System.nanoTime() - reloadBegins < TTL.toNanos() / 2,
                "the machine was too slow to check this in the reload's first half");
        assertEquals(2, get(cache, load));
        assertEquals(2, loads.get(), "a caller loaded again although a fresh reload was in the cache");
    }

    @Test
    void aReloadThatFailsDropsTheEntrySoTheNextCallerHearsTheFailure() throws Exception {
        ExpiringCache<String, Integer> cache = new ExpiringCache<>(TTL);
        AtomicInteger loads = new AtomicInteger();
        Supplier<Integer> load = () -> {
            if (loads.incrementAndGet() > 1) {
                throw new IllegalStateException("gone");
            }
            return 1;
        };
        assertEquals(1, get(cache, load));
        Thread.sleep(TTL.toMillis() / 2 + 50);
        assertEquals(1, get(cache, load));
        waitFor(() -> loads.get() == 2);
        Thread.sleep(50);
        assertThrows(IllegalStateException.class, () -> get(cache, load));
    }

    @Test
    void aReloadOverlappingAClearDoesNotBringBackWhatItRead() throws Exception {
        ExpiringCache<String, Integer> cache = new ExpiringCache<>(TTL);
        AtomicInteger loads = new AtomicInteger();
        CountDownLatch release = new CountDownLatch(1);
        Supplier<Integer> load = countingLoads(loads, release);
        assertEquals(1, get(cache, load));
        Thread.sleep(TTL.toMillis() / 2 + 50);
        assertEquals(1, get(cache, load));
        waitFor(() -> loads.get() == 2);
        cache.clear();
        assertEquals(3, get(cache, load));
        release.countDown();
        Thread.sleep(100);
        assertEquals(3, get(cache, load), "the reload begun before the clear replaced the read after it");
    }

    @Test
    void manyKeysDoNotPileUpTheCacheStartsAfreshPastItsBound() {
        ExpiringCache<String, Integer> cache = new ExpiringCache<>(Duration.ofMinutes(1), 3);
        AtomicInteger loads = new AtomicInteger();
        Supplier<Integer> load = loads::incrementAndGet;
        for (String k : new String[] {"a", "b", "c"}) {
            cache.get(k, load).await().atMost(Duration.ofSeconds(5));
        }
        assertEquals(1, cache.get("a", load).await().atMost(Duration.ofSeconds(5)), "within the bound: kept");
        cache.get("d", load).await().atMost(Duration.ofSeconds(5));
        assertEquals(5, cache.get("a", load).await().atMost(Duration.ofSeconds(5)), "past it: read again");
    }

    /** A load that returns how many loads there have been, the second held until {@code release} opens. */
    private static Supplier<Integer> countingLoads(AtomicInteger loads, CountDownLatch release) {
        return () -> {
            int n = loads.incrementAndGet();
            if (n == 2) {
                try {
                    release.await(5, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return n;
        };
    }

    private static void waitFor(java.util.function.BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (!condition.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, "condition not reached in 5 s");
            Thread.sleep(10);
        }
    }
}
