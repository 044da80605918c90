package io.tributary.backfill;

/** Points inside a merge where tests inject crashes and concurrent stream commits. */
interface MergeHooks {
    MergeHooks NONE = new MergeHooks() {};

    /** The round's files are written and not committed; {@code attempt} counts commit attempts from 0. */
    default void beforeCommit(int attempt) {}
}
