package io.tributary.delta;

import io.delta.kernel.data.ColumnarBatch;
import io.delta.kernel.data.FilteredColumnarBatch;
import io.delta.kernel.defaults.engine.DefaultParquetHandler;
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
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Optional;
import org.apache.parquet.ParquetReadOptions;
import org.apache.parquet.conf.ParquetConfiguration;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.filter2.compat.FilterCompat;
import org.apache.parquet.hadoop.ParquetReader;
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
 * vectors, row groups are pruned by the same statistics filter) with the codec factory set. Writes stay Kernel's:
 * the only Parquet Kernel writes here are checkpoints, uncompressed (no {@code parquet.compression} in
 * {@link StorageFileIO#getConf}), so no codec is loaded.
 */
final class PureJavaParquetHandler implements ParquetHandler {
    /** Kernel's default batch size ({@code delta.kernel.default.parquet.reader.batch-size}). */
    private static final int BATCH_SIZE = 1024;

    private final FileIO fileIO;
    private final DefaultParquetHandler writes;

    PureJavaParquetHandler(FileIO fileIO) {
        this.fileIO = fileIO;
        this.writes = new DefaultParquetHandler(fileIO);
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
            private ParquetReader<Object> reader;
            private boolean pending;

            @Override
            public boolean hasNext() {
                open();
                try {
                    if (!pending) {
                        pending = reader.read() != null;
                    }
                    return pending;
                } catch (IOException e) {
                    throw new KernelEngineException("Error reading Parquet file: " + file.getPath(), e);
                }
            }

            @Override
            public ColumnarBatch next() {
                if (!pending) {
                    throw new NoSuchElementException();
                }
                int rows = 0;
                do {
                    pending = false;
                    support.finalizeCurrentRow(rowIndex ? reader.getCurrentRowIndex() : -1);
                    rows++;
                } while (rows < BATCH_SIZE && hasNext());
                return support.getDataAsColumnarBatch(rows);
            }

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
                    reader = new ParquetReader.Builder<Object>(in, conf) {
                        @Override
                        protected ReadSupport<Object> getReadSupport() {
                            return support;
                        }
                    }
                            .withCodecFactory(PureJavaCodecs.INSTANCE)
                            .withFilter(filter)
                            .useRecordFilter(false)
                            .useStatsFilter(true)
                            .useBloomFilter(false)
                            .useDictionaryFilter(false)
                            .useColumnIndexFilter(false)
                            .build();
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
        ParquetReadOptions options = ParquetReadOptions.builder(conf).withCodecFactory(PureJavaCodecs.INSTANCE).build();
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
        return writes.writeParquetFiles(directory, data, statsColumns);
    }

    @Override
    public void writeParquetFileAtomically(String filePath, CloseableIterator<FilteredColumnarBatch> data)
            throws IOException {
        writes.writeParquetFileAtomically(filePath, data);
    }
}
