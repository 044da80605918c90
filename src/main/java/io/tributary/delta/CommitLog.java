package io.tributary.delta;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Optional;

/** Looks through the raw commit files of a version range for a marker string. */
final class CommitLog {
    private CommitLog() {}

    static Optional<Long> find(Storage storage, String tablePath, long fromVersion, long toVersion, String marker) {
        try {
            return scan(storage, tablePath, fromVersion, toVersion, marker);
        } catch (IOException e) {
            throw new UncheckedIOException("reading the Delta log of " + tablePath + " failed", e);
        }
    }

    private static Optional<Long> scan(Storage storage, String tablePath, long fromVersion, long toVersion, String marker)
            throws IOException {
        for (long v = fromVersion; v <= toVersion; v++) {
            String file = tablePath + "/_delta_log/" + String.format(Locale.ROOT, "%020d", v) + ".json";
            if (storage.stat(file).isEmpty()) {
                continue; // already cleaned up behind a checkpoint; cannot be a commit this writer just made
            }
            if (new String(storage.read(file), StandardCharsets.UTF_8).contains(marker)) {
                return Optional.of(v);
            }
        }
        return Optional.empty();
    }
}
