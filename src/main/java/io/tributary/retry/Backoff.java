package io.tributary.retry;

import java.time.Duration;

/**
 * How long to wait before the next try of something that failed: the first delay, doubled at each further retry up
 * to a ceiling. One policy for every retry loop (the server's pipelines, idle watch and start-up, the schema registry
 * client, S3's conflicting writes), so their waits follow one rule and are tuned in one place. Plain Java: the core
 * uses it, so it cannot come from the adapters' fault-tolerance library.
 */
public record Backoff(Duration first, Duration max) {

    public Backoff {
        if (first.isNegative() || first.isZero() || max.compareTo(first) < 0) {
            throw new IllegalArgumentException("a backoff needs 0 < first <= max, not " + first + " and " + max);
        }
    }

    public static Backoff exponential(Duration first, Duration max) {
        return new Backoff(first, max);
    }

    /** The wait before retry {@code retry} (1 for the first retry): {@code first * 2^(retry - 1)}, at most max. */
    public Duration delay(int retry) {
        if (retry <= 1) {
            return first;
        }
        int doublings = Math.min(retry - 1, 62);
        long firstNanos = first.toNanos();
        long maxNanos = max.toNanos();
        return firstNanos > (maxNanos >> doublings) ? max : Duration.ofNanos(firstNanos << doublings);
    }

    /** A loop's retries in a row: {@link #next()} after each failure, {@link #reset()} after a success. */
    public Retries retries() {
        return new Retries(this);
    }

    /** Not thread-safe: one loop's own counter. */
    public static final class Retries {
        private final Backoff backoff;
        private int failures;

        private Retries(Backoff backoff) {
            this.backoff = backoff;
        }

        /** Counts a failure and returns the wait before the next try. */
        public Duration next() {
            failures++;
            return backoff.delay(failures);
        }

        public void reset() {
            failures = 0;
        }
    }
}
