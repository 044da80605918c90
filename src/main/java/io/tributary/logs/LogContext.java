package io.tributary.logs;

import org.jboss.logging.MDC;

/**
 * What every ingestion, backfill and maintenance log line carries besides its text: the stream, the table version and
 * the batch size, as MDC entries of the logging API the core already uses (jboss-logging, no Quarkus). The JSON log
 * format (README, {@code TRIBUTARY_LOG_JSON}) writes them as fields of each line's {@code mdc} object, so a log
 * search can follow one stream without parsing messages. MDC is per thread: each runtime sets the stream on the
 * threads that work for it (a pipeline's consumer and writer, an invocation's handler thread), the core adds the
 * version and the batch size where it knows them.
 */
public final class LogContext {
    public static final String STREAM = "stream";
    public static final String TABLE_VERSION = "table_version";
    public static final String BATCH_SIZE = "batch_size";
    /** The table's location, where the stream is not known (table maintenance runs over tables). */
    public static final String TABLE = "table";

    private LogContext() {}

    /** Sets the stream of this thread's lines; the version and batch size of an earlier stream are dropped. */
    public static void stream(String streamName) {
        MDC.remove(TABLE_VERSION);
        MDC.remove(BATCH_SIZE);
        MDC.remove(TABLE);
        if (streamName == null) {
            MDC.remove(STREAM);
        } else {
            MDC.put(STREAM, streamName);
        }
    }

    /** The stream of this thread's lines, if set. */
    public static String stream() {
        Object name = MDC.get(STREAM);
        return name == null ? null : name.toString();
    }

    public static void table(String location) {
        MDC.put(TABLE, location);
    }

    /** The table version the lines that follow are about (the last one committed or read). */
    public static void tableVersion(long version) {
        if (version >= 0) {
            MDC.put(TABLE_VERSION, Long.toString(version));
        }
    }

    /** How many records (ingestion), rows (backfill) or files (maintenance) the lines that follow are about. */
    public static void batchSize(long size) {
        MDC.put(BATCH_SIZE, Long.toString(size));
    }

    /** Removes everything this class set on this thread (a pooled thread goes on to other work). */
    public static void clear() {
        MDC.remove(STREAM);
        MDC.remove(TABLE_VERSION);
        MDC.remove(BATCH_SIZE);
        MDC.remove(TABLE);
    }
}
