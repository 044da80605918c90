package io.tributary.delta.kernel;

/** The table id of a snapshot (its metaData action's), which Kernel's API reaches only through an internal type. */
public final class TableIds {
    private TableIds() {}

    public static String of(io.delta.kernel.Snapshot snapshot) {
        return snapshot.getMetadata().getId();
    }
}
