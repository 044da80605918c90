package io.tributary.delta;

import java.util.List;
import java.util.Map;

/**
 * Commits that must not be rebased: a writer that filtered its rows against one version (the backfill merge) reads
 * what landed since, filters again and commits only if nothing else landed meanwhile.
 */
public interface ExclusiveCommits extends TableWriter {

    /**
     * The rows of the data files live now that were not live at {@code version}: what other writers appended since.
     * {@link TableRows#version()} is the version read.
     */
    TableRows rowsAddedSince(long version);

    /**
     * Commits the files and the domain metadata in one Delta commit only if no other commit landed after
     * {@code basedOn}: for a writer that filtered its rows against that version. Position domains keep their values.
     *
     * @return the committed version ({@code basedOn + 1})
     * @throws TableChangedException when the table moved past {@code basedOn}; nothing was committed
     */
    long commitExclusive(long basedOn, List<DataFile> files, Map<String, String> domainMetadata);
}
