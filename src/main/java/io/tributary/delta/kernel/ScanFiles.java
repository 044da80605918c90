package io.tributary.delta.kernel;

import io.delta.kernel.data.Row;
import io.delta.kernel.internal.InternalScanFileUtils;
import io.delta.kernel.internal.data.ScanStateRow;
import io.delta.kernel.types.StructType;
import io.delta.kernel.utils.FileStatus;

/** Reads the rows {@code Scan.getScanFiles} returns; their layout is only described by Kernel's internal helpers. */
public final class ScanFiles {
    private ScanFiles() {
    }

    /** The add action inside a scan-file row. */
    public static Row addFile(Row scanFile) {
        return scanFile.getStruct(InternalScanFileUtils.ADD_FILE_ORDINAL);
    }

    /** The path of a scan file as the log records it (relative to the table, or absolute). */
    public static String logPath(Row scanFile) {
        return addFile(scanFile).getString(0);
    }

    /** The file a scan-file row points at, its path resolved against the table root. */
    public static FileStatus fileStatus(Row scanFile) {
        return InternalScanFileUtils.getAddFileStatus(scanFile);
    }

    /** Whether the scan file carries a deletion vector. */
    public static boolean hasDeletionVector(Row scanFile) {
        return InternalScanFileUtils.getDeletionVectorDescriptorFromRow(scanFile) != null;
    }

    /** The statistics JSON of an add action (from {@link #addFile}), or null when the writer recorded none. */
    public static String statsJson(Row addFile) {
        return addFile.isNullAt(InternalScanFileUtils.ADD_FILE_STATS_ORDINAL) ? null
                : addFile.getString(InternalScanFileUtils.ADD_FILE_STATS_ORDINAL);
    }

    /** The physical schema the Parquet files of a scan are read with. */
    public static StructType physicalReadSchema(Row scanState) {
        return ScanStateRow.getPhysicalDataReadSchema(scanState);
    }
}
