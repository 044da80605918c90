package io.tributary.ingest.direct;

/** What became of a {@link Push}. */
public sealed interface PushOutcome {

    /**
     * The batch is in the table: committed now, or earlier ({@code duplicate}: a retry, nothing was written).
     * {@code committedSequence} is the producer's last committed sequence after the commit, {@code tableVersion} the
     * version that holds it (for a duplicate, the table's version as this writer last saw it).
     */
    record Committed(long committedSequence, long tableVersion, boolean duplicate) implements PushOutcome {}

    /** The batch skips sequences: nothing was written; the producer's next batch must carry {@code expected}. */
    record Gap(long expected) implements PushOutcome {}
}
