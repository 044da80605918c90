package io.tributary.delta;

import io.delta.kernel.data.ColumnarBatch;
import io.delta.kernel.data.FilteredColumnarBatch;
import io.delta.kernel.defaults.engine.fileio.FileIO;
import io.delta.kernel.defaults.internal.parquet.ParquetFileReader.BatchReadSupport;
import io.delta.kernel.defaults.internal.parquet.ParquetFilterUtils;
import io.delta.kernel.engine.FileReadResult;
import io.delta.kernel.engine.ParquetHandler;
import io.delta.kernel.exceptions.KernelEngineException;
import io.delta.kernel.expressions.Column;
import io.delta.kernel.expressions.Predicate;
import io.delta.kernel.types.MetadataColumnSpec;
import io.delta.kernel.types.StructType;
import io.delta.kernel.utils.CloseableIterator;
import io.delta.kernel.utils.DataFileStatus;
import io.delta.kernel.utils.FileStatus;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.NoSuchElementException;
import java.util.Optional;
import org.apache.parquet.ParquetReadOptions;
import org.apache.parquet.conf.ParquetConfiguration;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.filter2.compat.FilterCompat;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.hadoop.api.InitContext;
import org.apache.parquet.hadoop.metadata.FileMetaData;
import org.apache.parquet.io.ColumnIOFactory;
import org.apache.parquet.io.MessageColumnIO;
import org.apache.parquet.io.RecordReader;
import org.apache.parquet.hadoop.api.ReadSupport;
import org.apache.parquet.io.DelegatingSeekableInputStream;
import org.apache.parquet.io.InputFile;
import org.apache.parquet.io.SeekableInputStream;
import org.apache.parquet.io.api.RecordMaterializer;
import org.apache.parquet.schema.MessageType;

/**
 * Kernel's Parquet handler with reads decompressed by {@link PureJavaCodecs}. Kernel's own reader builds its
 * {@code ParquetReader} with parquet-hadoop's {@code CodecFactory}, which reaches snappy-java's JNI library for every
 * Snappy page (ours, Spark's); this one is the same reader (Kernel's {@code BatchReadSupport} turns rows into column
 * vectors, row groups are pruned by the same statistics filter) with the codec factory set. The only Parquet Kernel
 * writes here are its checkpoints, through {@link BatchParquetWriter}, which needs no Hadoop class (Kernel's own
 * writer does); our data files are written by {@link ParquetDataFiles}, so Kernel's data-file write is refused.
 */
final class PureJavaParquetHandler implements ParquetHandler {
    /** Kernel's default batch size ({@code delta.kernel.default.parquet.reader.batch-size}). */
    private static final int BATCH_SIZE = 1024;

    private final FileIO fileIO;

    PureJavaParquetHandler(FileIO fileIO) {
        this.fileIO = fileIO;
    }

    @Override
    public CloseableIterator<FileReadResult> readParquetFiles(CloseableIterator<FileStatus> files,
            StructType physicalSchema, Optional<Predicate> predicate) {
        return new CloseableIterator<>() {
            private CloseableIterator<ColumnarBatch> current;
            private String currentPath;

            @Override
            public boolean hasNext() {
                while (true) {
                    if (current != null && current.hasNext()) {
                        return true;
                    }
                    closeCurrent();
                    if (!files.hasNext()) {
                        return false;
                    }
                    FileStatus file = files.next();
                    current = read(file, physicalSchema, predicate);
                    currentPath = file.getPath();
                }
            }

            @Override
            public FileReadResult next() {
                if (!hasNext()) {
                    throw new NoSuchElementException();
                }
                return new FileReadResult(current.next(), currentPath);
            }

            private void closeCurrent() {
                if (current != null) {
                    try {
                        current.close();
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                    current = null;
                    currentPath = null;
                }
            }

            @Override
            public void close() throws IOException {
                try {
                    closeCurrent();
                } finally {
                    files.close();
                }
            }
        };
    }

    private CloseableIterator<ColumnarBatch> read(FileStatus file, StructType schema, Optional<Predicate> predicate) {
        boolean otherMetadata = schema.fields().stream()
                .anyMatch(f -> f.isMetadataColumn() && f.getMetadataColumnSpec() != MetadataColumnSpec.ROW_INDEX);
        if (otherMetadata) {
            throw new IllegalArgumentException("The parquet reader does not support metadata columns other than ROW_INDEX");
        }
        boolean rowIndex = schema.contains(MetadataColumnSpec.ROW_INDEX);
        BatchReadSupport support = new PlainBatchReadSupport(schema);
        return new CloseableIterator<>() {
            private org.apache.parquet.hadoop.ParquetFileReader reader;
            private MessageColumnIO columnIO;
            private RecordMaterializer<Object> materializer;
            private RecordReader<Object> records;
            private long left;
            private long nextRowIndex = -1;
            private boolean done;

            @Override
            public boolean hasNext() {
                open();
                try {
                    while (left == 0) {
                        PageReadStore pages = done ? null : reader.readNextRowGroup();
                        if (pages == null) {
                            done = true;
                            return false;
                        }
                        left = pages.getRowCount();
                        nextRowIndex = pages.getRowIndexOffset().orElse(-1L);
                        records = columnIO.getRecordReader(pages, materializer, FilterCompat.NOOP);
                    }
                    return true;
                } catch (IOException e) {
                    throw new KernelEngineException("Error reading Parquet file: " + file.getPath(), e);
                }
            }

            @Override
            public ColumnarBatch next() {
                if (!hasNext()) {
                    throw new NoSuchElementException();
                }
                int rows = 0;
                do {
                    records.read();
                    support.finalizeCurrentRow(rowIndex ? nextRowIndex : -1);
                    if (nextRowIndex >= 0) {
                        nextRowIndex++;
                    }
                    left--;
                    rows++;
                } while (rows < BATCH_SIZE && hasNext());
                return support.getDataAsColumnarBatch(rows);
            }

            /**
             * Parquet's row-group reader and record assembly, driven here rather than through {@code ParquetReader}:
             * that class's builder links Hadoop's {@code Path} and {@code PathFilter}, which the JVM's verifier loads
             * before any of it runs, and the function zips carry no Hadoop.
             */
            private void open() {
                if (reader != null) {
                    return;
                }
                try {
                    InputFile in = inputFile(fileIO.newInputFile(file.getPath(), file.getSize()));
                    ParquetConfiguration conf = new PlainParquetConfiguration();
                    FilterCompat.Filter filter = FilterCompat.NOOP;
                    if (predicate.isPresent()) {
                        MessageType fileSchema = footerSchema(in, conf);
                        filter = ParquetFilterUtils.toParquetFilter(fileSchema, predicate.get())
                                .map(FilterCompat::get).orElse(FilterCompat.NOOP);
                    }
                    // Row groups are pruned by their statistics only, as Kernel's reader does.
                    ParquetReadOptions options = PlainReadOptions.statsFiltered(filter, PureJavaCodecs.INSTANCE);
                    reader = new org.apache.parquet.hadoop.ParquetFileReader(in, options);
                    FileMetaData meta = reader.getFooter().getFileMetaData();
                    Map<String, String> keyValues = meta.getKeyValueMetaData();
                    Map<String, Set<String>> merged = new HashMap<>();
                    keyValues.forEach((k, v) -> merged.put(k, Set.of(v)));
                    ReadSupport.ReadContext context = support.init(new InitContext(conf, merged, meta.getSchema()));
                    MessageType requested = context.getRequestedSchema();
                    reader.setRequestedSchema(requested);
                    materializer = support.prepareForRead(conf, keyValues, meta.getSchema(), context);
                    columnIO = new ColumnIOFactory(meta.getCreatedBy()).getColumnIO(requested, meta.getSchema(), true);
                } catch (IOException e) {
                    throw new KernelEngineException("Error reading Parquet file: " + file.getPath(), e);
                }
            }

            @Override
            public void close() throws IOException {
                if (reader != null) {
                    reader.close();
                }
            }
        };
    }

    private static MessageType footerSchema(InputFile in, ParquetConfiguration conf) throws IOException {
        ParquetReadOptions options = PlainReadOptions.statsFiltered(FilterCompat.NOOP, PureJavaCodecs.INSTANCE);
        try (org.apache.parquet.hadoop.ParquetFileReader footer =
                org.apache.parquet.hadoop.ParquetFileReader.open(in, options)) {
            return footer.getFooter().getFileMetaData().getSchema();
        }
    }

    /** Kernel's file, as Parquet's. */
    private static InputFile inputFile(io.delta.kernel.defaults.engine.fileio.InputFile file) {
        return new InputFile() {
            @Override
            public long getLength() throws IOException {
                return file.length();
            }

            @Override
            public SeekableInputStream newStream() throws IOException {
                io.delta.kernel.defaults.engine.fileio.SeekableInputStream in = file.newStream();
                return new DelegatingSeekableInputStream(in) {
                    @Override
                    public long getPos() throws IOException {
                        return in.getPos();
                    }

                    @Override
                    public void seek(long newPos) throws IOException {
                        in.seek(newPos);
                    }
                };
            }
        };
    }

    /**
     * Kernel's read support, entered through Parquet's configuration-neutral call: its Hadoop-{@code Configuration}
     * variant ignores the configuration, and the default bridge would build a Hadoop {@code Configuration} per file.
     */
    private static final class PlainBatchReadSupport extends BatchReadSupport {
        PlainBatchReadSupport(StructType schema) {
            super(BATCH_SIZE, schema);
        }

        @Override
        public RecordMaterializer<Object> prepareForRead(ParquetConfiguration configuration,
                Map<String, String> keyValueMetaData, MessageType fileSchema, ReadContext readContext) {
            return prepareForRead((org.apache.hadoop.conf.Configuration) null, keyValueMetaData, fileSchema, readContext);
        }
    }

    @Override
    public CloseableIterator<DataFileStatus> writeParquetFiles(String directory,
            CloseableIterator<FilteredColumnarBatch> data, List<Column> statsColumns) throws IOException {
        data.close();
        throw new UnsupportedOperationException("data files are written by ParquetDataFiles, not by the engine");
    }

    @Override
    public void writeParquetFileAtomically(String filePath, CloseableIterator<FilteredColumnarBatch> data)
            throws IOException {
        BatchParquetWriter.writeAtomically(fileIO, filePath, data);
    }
}
