package io.tributary.ingest;

import java.util.Map;

/**
 * Pushed batches that do not continue their producer's sequence as the table has it: nothing of the batch was
 * committed. {@link #expected()} names, per producer, the sequence its next batch must carry.
 */
public final class SequenceGapException extends RuntimeException {
    private final transient Map<String, Long> expected;

    public SequenceGapException(Map<String, Long> expected) {
        super("batches skip sequences; expected " + expected);
        this.expected = Map.copyOf(expected);
    }

    public Map<String, Long> expected() {
        return expected;
    }
}
