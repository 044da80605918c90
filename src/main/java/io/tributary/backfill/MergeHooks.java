package io.tributary.backfill;

/** Points inside a merge where tests inject crashes and concurrent stream commits. */
interface MergeHooks {
    MergeHooks NONE = new MergeHooks() {};

    /** The round's files are written and not committed; {@code attempt} counts commit attempts from 0. */
    default void beforeCommit(int attempt) {}

    /** Like {@link #beforeCommit}, inside the write guard: the stream was found registered and the commit follows. */
    default void guarded(int attempt) {}
}
