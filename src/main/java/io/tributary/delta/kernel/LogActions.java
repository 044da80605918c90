package io.tributary.delta.kernel;

import io.delta.kernel.CommitRange;
import io.delta.kernel.data.ColumnVector;
import io.delta.kernel.data.ColumnarBatch;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.internal.DeltaLogActionUtils.DeltaAction;
import io.delta.kernel.utils.CloseableIterator;
import java.util.Set;

/** Reads remove actions from a commit range: the action names and their schema are Kernel internals. */
public final class LogActions {
    private static final int REMOVE_PATH = DeltaAction.REMOVE.schema.indexOf("path");
    private static final int REMOVE_SIZE = DeltaAction.REMOVE.schema.indexOf("size");
    private static final int REMOVE_DATA_CHANGE = DeltaAction.REMOVE.schema.indexOf("dataChange");
    private static final int ADD_PATH = DeltaAction.ADD.schema.indexOf("path");
    private static final int ADD_SIZE = DeltaAction.ADD.schema.indexOf("size");
    private static final int ADD_MODIFICATION_TIME = DeltaAction.ADD.schema.indexOf("modificationTime");
    private static final int ADD_DATA_CHANGE = DeltaAction.ADD.schema.indexOf("dataChange");
    private static final int ADD_DELETION_VECTOR = DeltaAction.ADD.schema.indexOf("deletionVector");

    private LogActions() {
    }

    /** The batches of a commit range's remove actions; read them with {@link #removes} and {@link #removedPaths}. */
    public static CloseableIterator<ColumnarBatch> removeActions(CommitRange range, Engine engine) {
        return range.getActions(engine, Set.of(DeltaAction.REMOVE));
    }

    /** The remove column of a batch: null in rows that are not a remove. */
    public static ColumnVector removes(ColumnarBatch batch) {
        return batch.getColumnVector(batch.getSchema().indexOf(DeltaAction.REMOVE.colName));
    }

    /** The path child of a remove column. */
    public static ColumnVector removedPaths(ColumnVector removes) {
        return removes.getChild(REMOVE_PATH);
    }

    /** The batches of a commit range's add actions; read them with {@link #adds} and {@link #addedFile}. */
    public static CloseableIterator<ColumnarBatch> addActions(CommitRange range, Engine engine) {
        return range.getActions(engine, Set.of(DeltaAction.ADD));
    }

    /** The add column of a batch: null in rows that are not an add. */
    public static ColumnVector adds(ColumnarBatch batch) {
        return batch.getColumnVector(batch.getSchema().indexOf(DeltaAction.ADD.colName));
    }

    /**
     * The batches of a commit range's add and remove actions together; read them with {@link #adds},
     * {@link #addedFile}, {@link #removes} and {@link #removedFile}.
     */
    public static CloseableIterator<ColumnarBatch> addAndRemoveActions(CommitRange range, Engine engine) {
        return range.getActions(engine, Set.of(DeltaAction.ADD, DeltaAction.REMOVE));
    }

    /** One remove action of a commit range: its path as the log records it, its size when recorded (else -1). */
    public record RemovedFile(String logPath, long size, boolean dataChange) {}

    /** The remove action in row {@code row} of a remove column that is not null there. */
    public static RemovedFile removedFile(ColumnVector removes, int row) {
        ColumnVector size = removes.getChild(REMOVE_SIZE);
        ColumnVector dataChange = removes.getChild(REMOVE_DATA_CHANGE);
        return new RemovedFile(removes.getChild(REMOVE_PATH).getString(row), size.isNullAt(row) ? -1 : size.getLong(row),
                dataChange.isNullAt(row) || dataChange.getBoolean(row));
    }

    /** One add action of a commit range, its path as the log records it (relative to the table, or absolute). */
    public record AddedFile(String logPath, long size, long modificationTime, boolean dataChange,
            boolean deletionVector) {}

    /** The add action in row {@code row} of an add column that is not null there. */
    public static AddedFile addedFile(ColumnVector adds, int row) {
        ColumnVector dataChange = adds.getChild(ADD_DATA_CHANGE);
        return new AddedFile(adds.getChild(ADD_PATH).getString(row), adds.getChild(ADD_SIZE).getLong(row),
                adds.getChild(ADD_MODIFICATION_TIME).getLong(row),
                dataChange.isNullAt(row) || dataChange.getBoolean(row),
                !adds.getChild(ADD_DELETION_VECTOR).isNullAt(row));
    }
}
