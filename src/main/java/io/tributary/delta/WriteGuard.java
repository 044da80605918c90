package io.tributary.delta;

import java.util.Optional;
import java.util.function.Supplier;

/**
 * Fences a background write to a table (the backfill merge, compaction) against the table's deletion. The delta code
 * does not know who owns a table or when it is deleted; the registry does, and supplies the guard. A guard runs the
 * write only while the table's owner still exists, and a deletion waits for a write the guard is running, so no
 * commit recreates a log the deletion removed.
 */
public interface WriteGuard {
    /** No fencing: for tables nobody deletes while they are written (tests, tools). */
    WriteGuard NONE = new WriteGuard() {
        @Override
        public <T> Optional<T> run(Supplier<T> write) {
            return Optional.of(write.get());
        }
    };

    /**
     * @return the write's result, or empty, without running it, when the table's owner is gone (deleted, or being
     *         deleted)
     */
    <T> Optional<T> run(Supplier<T> write);
}
