package io.tributary.delta;

import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.parquet.column.EncodingStats;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;

/**
 * Which columns of one table are written without a dictionary, learned from the files written before. A column of
 * mostly distinct values (offsets, ids, user names) builds a dictionary for every value and then falls back to plain
 * encoding at the end of the page: the same file, about a third more of the writer's CPU time (measured on the ingest
 * bench's records). Columns that fell back in a file are written plain in the next ones; every
 * {@value #RELEARN_EVERY}th file tries a dictionary on every column again, so a column whose values become repetitive
 * gets it back. Only the encoding changes, never the values; thread-safe, as files of one table are written at once.
 */
final class DictionaryChoices {

    static final int RELEARN_EVERY = 16;

    private final Set<String> plain = ConcurrentHashMap.newKeySet();
    private final AtomicLong files = new AtomicLong();

    /** Configures a writer; returns whether this file relearns (tries a dictionary everywhere). */
    boolean apply(ParquetWriter.Builder<?, ?> builder) {
        boolean relearn = files.getAndIncrement() % RELEARN_EVERY == 0;
        if (!relearn) {
            for (String column : plain) {
                builder.withDictionaryEncoding(column, false);
            }
        }
        return relearn;
    }

    /** Learns from the footer of a file configured by {@link #apply}. */
    void learn(ParquetMetadata footer, boolean relearned) {
        Set<String> fellBack = new HashSet<>();
        for (BlockMetaData block : footer.getBlocks()) {
            for (ColumnChunkMetaData column : block.getColumns()) {
                EncodingStats stats = column.getEncodingStats();
                if (stats != null && stats.hasNonDictionaryEncodedPages()) {
                    fellBack.add(column.getPath().toDotString());
                }
            }
        }
        if (relearned) {
            plain.retainAll(fellBack);
        }
        plain.addAll(fellBack);
    }

    /** The columns written plain from now on, for tests. */
    Set<String> plainColumns() {
        return Set.copyOf(plain);
    }
}
