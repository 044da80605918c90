package io.tributary.delta;

import io.delta.kernel.Snapshot;
import io.delta.kernel.data.FilteredColumnarBatch;
import io.delta.kernel.data.Row;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.utils.CloseableIterator;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.function.Consumer;

/** The scan files (Kernel's rows of one live data file each) of a snapshot, for whoever lists a table's files. */
final class LiveFiles {
    private LiveFiles() {}

    /** {@code withStats}: whether the rows carry the files' statistics (Kernel drops them otherwise). */
    static void forEach(Engine engine, Snapshot snapshot, boolean withStats, Consumer<Row> scanFile) {
        try (CloseableIterator<FilteredColumnarBatch> batches = snapshot.getScanBuilder().build()
                .getScanFiles(engine, withStats)) {
            while (batches.hasNext()) {
                try (CloseableIterator<Row> rows = batches.next().getRows()) {
                    rows.forEachRemaining(scanFile);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("reading the file list of " + snapshot.getPath() + " failed", e);
        }
    }
}
