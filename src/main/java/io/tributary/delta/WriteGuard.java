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

    /**
     * Asked after {@code failure} of work done outside the guard (writing data files, opening the table): whether
     * the owner is gone, which means a deletion was removing the table under that work. Waits for a deletion in
     * flight. A guard that cannot answer says no and adds its own failure to {@code failure}, which stays the one
     * to report.
     */
    default boolean ownerGoneAfter(RuntimeException failure) {
        try {
            return run(() -> Boolean.TRUE).isEmpty();
        } catch (RuntimeException unknown) {
            failure.addSuppressed(unknown);
            return false;
        }
    }
}
