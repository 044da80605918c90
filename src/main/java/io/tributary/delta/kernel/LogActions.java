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
}
