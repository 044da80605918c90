package io.tributary.delta;

import io.delta.kernel.types.StructType;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.UUID;
import org.apache.avro.Conversions;
import org.apache.avro.Schema;
import org.apache.avro.data.TimeConversions;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.parquet.avro.AvroParquetWriter;
import org.apache.parquet.avro.AvroWriteSupport;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.hadoop.ParquetFileWriter;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.io.OutputFile;
import org.apache.parquet.io.PositionOutputStream;

/**
 * Writes rows into one Parquet data file with parquet-avro, computing Delta statistics on the way. The file is built
 * in memory and stored with one put, so S3 needs no multipart logic and no Hadoop FileSystem is involved.
 */
final class ParquetDataFiles {

    /** Rows should not straddle row groups for files of a micro-batch; 128 MB matches Delta's default target. */
    private static final long ROW_GROUP_BYTES = 128L * 1024 * 1024;

    private final Storage storage;

    ParquetDataFiles(Storage storage) {
        this.storage = storage;
    }

    DataFile write(String tableRoot, Schema rowSchema, StructType deltaSchema, Iterable<GenericRecord> rows) {
        String name = "part-00000-" + UUID.randomUUID() + "-c000.snappy.parquet";
        FileStatistics stats = new FileStatistics(rowSchema, deltaSchema);
        MemoryOutputFile out = new MemoryOutputFile(name);
        try (ParquetWriter<GenericRecord> writer = AvroParquetWriter.<GenericRecord>builder(out)
                .withSchema(rowSchema)
                .withDataModel(dataModel())
                // Three-level lists are what Spark and Kernel read; parquet-avro's default is the legacy two-level.
                .withConf(new PlainParquetConfiguration(Map.of(AvroWriteSupport.WRITE_OLD_LIST_STRUCTURE, "false")))
                .withCodecFactory(PureJavaSnappy.INSTANCE)
                .withCompressionCodec(CompressionCodecName.SNAPPY)
                .withWriteMode(ParquetFileWriter.Mode.CREATE)
                .withRowGroupSize(ROW_GROUP_BYTES)
                .build()) {
            for (GenericRecord row : rows) {
                writer.write(row);
                stats.add(row);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("writing a Parquet file for " + tableRoot + " failed", e);
        }
        byte[] bytes = out.bytes();
        try {
            storage.put(tableRoot + "/" + name, bytes);
        } catch (IOException e) {
            throw new UncheckedIOException("storing data file " + name + " in " + tableRoot + " failed", e);
        }
        return new DataFile(name, bytes.length, stats.result().getNumRecords(), stats.json());
    }

    /** Rows may carry either raw Avro values or the Java types of the logical-type conversions. */
    private static GenericData dataModel() {
        GenericData model = new GenericData();
        model.addLogicalTypeConversion(new Conversions.DecimalConversion());
        model.addLogicalTypeConversion(new TimeConversions.DateConversion());
        model.addLogicalTypeConversion(new TimeConversions.TimestampMicrosConversion());
        model.addLogicalTypeConversion(new TimeConversions.LocalTimestampMicrosConversion());
        return model;
    }

    private static final class MemoryOutputFile implements OutputFile {
        private final String name;
        private final ByteArrayOutputStream buffer = new ByteArrayOutputStream(1 << 20);

        MemoryOutputFile(String name) {
            this.name = name;
        }

        byte[] bytes() {
            return buffer.toByteArray();
        }

        @Override
        public PositionOutputStream create(long blockSizeHint) {
            return new PositionOutputStream() {
                @Override
                public long getPos() {
                    return buffer.size();
                }

                @Override
                public void write(int b) {
                    buffer.write(b);
                }

                @Override
                public void write(byte[] b, int off, int len) {
                    buffer.write(b, off, len);
                }
            };
        }

        @Override
        public PositionOutputStream createOrOverwrite(long blockSizeHint) {
            return create(blockSizeHint);
        }

        @Override
        public boolean supportsBlockSize() {
            return false;
        }

        @Override
        public long defaultBlockSize() {
            return ROW_GROUP_BYTES;
        }

        @Override
        public String getPath() {
            return name;
        }
    }
}
