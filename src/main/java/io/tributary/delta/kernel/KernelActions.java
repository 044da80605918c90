package io.tributary.delta.kernel;

import io.delta.kernel.Snapshot;
import io.delta.kernel.data.Row;
import io.delta.kernel.internal.SnapshotImpl;
import io.delta.kernel.internal.actions.AddFile;
import io.delta.kernel.internal.actions.CommitInfo;
import io.delta.kernel.internal.actions.Metadata;
import io.delta.kernel.internal.actions.SingleAction;
import io.delta.kernel.types.StructType;
import io.delta.kernel.utils.DataFileStatus;
import java.net.URI;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * Builds the log actions Kernel's public transaction API cannot: removing a given file (compaction) and replacing
 * the metadata (schema evolution). Each result is a SingleAction row, ready to commit.
 */
public final class KernelActions {
    private KernelActions() {
    }

    /** The action removing the file of an add action (a row from {@code ScanFiles.addFile}), stamped {@code now}. */
    public static Row remove(Row addFile, long now) {
        return remove(addFile, now, false);
    }

    /** As {@link #remove(Row, long)}; {@code dataChange} true when the replacing file's rows differ (a rewrite). */
    public static Row remove(Row addFile, long now, boolean dataChange) {
        return SingleAction.createRemoveFileSingleAction(new AddFile(addFile).toRemoveFileRow(dataChange,
                Optional.of(now)));
    }

    /** The action adding an unpartitioned data file of the table at {@code root}. */
    public static Row add(StructType schema, URI root, DataFileStatus status) {
        return add(schema, root, status, false);
    }

    /** As {@link #add(StructType, URI, DataFileStatus)}, with the action's {@code dataChange}. */
    public static Row add(StructType schema, URI root, DataFileStatus status, boolean dataChange) {
        AddFile add = AddFile.convertDataFileStatus(schema, root, status, Collections.emptyMap(), dataChange,
                Collections.emptyMap(), Optional.empty(), Optional.empty(), Optional.empty());
        return SingleAction.createAddFileSingleAction(add.toRow());
    }

    /** Whether an add action names an unpartitioned file below {@code bytes} without a deletion vector. */
    public static boolean isPlainFileSmallerThan(Row addFile, long bytes) {
        AddFile file = new AddFile(addFile);
        return file.getSize() < bytes && file.getDeletionVector().isEmpty() && file.getPartitionValues().getSize() == 0;
    }

    /**
     * The commit-info and metadata actions that replace the schema of {@code snapshot}'s table by {@code schema},
     * keeping the rest of its metadata. No in-commit timestamps on our tables (Kernel would have to write them),
     * hence none here.
     */
    public static List<Row> schemaChange(Snapshot snapshot, StructType schema, String engineInfo, long now) {
        Metadata metadata = ((SnapshotImpl) snapshot).getMetadata();
        Row commitInfo = new CommitInfo(Optional.empty(), now, Optional.of(engineInfo), Optional.of("ADD COLUMNS"),
                Map.of(), Optional.of(false), Optional.of(UUID.randomUUID().toString()), Map.of()).toRow();
        return List.of(SingleAction.createCommitInfoSingleAction(commitInfo),
                SingleAction.createMetadataSingleAction(metadata.withNewSchema(schema).toRow()));
    }
}
