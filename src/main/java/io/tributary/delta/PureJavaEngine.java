package io.tributary.delta;

import io.delta.kernel.defaults.engine.DefaultEngine;
import io.delta.kernel.defaults.engine.fileio.FileIO;
import io.delta.kernel.engine.MetricsReporter;
import io.delta.kernel.engine.ParquetHandler;
import java.util.List;

/**
 * Kernel's default engine on our {@link FileIO}, with the two parts a native image cannot take as they are: Parquet
 * reads decompress in pure Java ({@link PureJavaParquetHandler}), and no metrics reporter runs (the default
 * {@code LoggingMetricsReporter} serialises every snapshot, scan and transaction report with Jackson databind, by
 * reflection over Kernel's report classes, only to log it at INFO, which our logging configuration drops anyway).
 */
final class PureJavaEngine extends DefaultEngine {
    private final ParquetHandler parquet;

    PureJavaEngine(FileIO fileIO) {
        super(fileIO);
        this.parquet = new PureJavaParquetHandler(fileIO);
    }

    @Override
    public ParquetHandler getParquetHandler() {
        return parquet;
    }

    @Override
    public List<MetricsReporter> getMetricsReporters() {
        return List.of();
    }
}
