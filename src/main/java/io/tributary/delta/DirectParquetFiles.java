package io.tributary.delta;

import io.delta.kernel.statistics.DataFileStatistics;
import io.delta.kernel.types.StructType;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.UUID;
import org.apache.avro.Schema;
import org.apache.parquet.avro.AvroSchemaConverter;
import org.apache.parquet.avro.AvroWriteSupport;
import org.apache.parquet.conf.ParquetConfiguration;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.hadoop.ParquetFileWriter;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.api.WriteSupport;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.io.OutputFile;
import org.apache.parquet.io.api.RecordConsumer;
import org.apache.parquet.schema.MessageType;

/**
 * Writes a {@link RowSource} into one Parquet data file: each row goes field by field into parquet-column's record
 * consumer through a {@link ValueWriters} plan, with no row object and no walk by parquet-avro, and the Delta
 * statistics come from the footer ({@link FooterStatistics}). Schema, footer metadata, encodings and compression are
 * those of {@link ParquetDataFiles}' parquet-avro files (the Parquet schema is parquet-avro's conversion of the same
 * file schema), so readers see the same files.
 */
final class DirectParquetFiles {
    private final Storage storage;

    DirectParquetFiles(Storage storage) {
        this.storage = storage;
    }

    DataFile write(String tableRoot, StructType deltaSchema, RowSource rows, DictionaryChoices dictionaries) {
        Schema rowSchema = rows.rowSchema();
        Schema fileSchema = ParquetDataFiles.fileSchema(rowSchema);
        PlainParquetConfiguration conf =
                new PlainParquetConfiguration(Map.of(AvroWriteSupport.WRITE_OLD_LIST_STRUCTURE, "false"));
        MessageType parquetSchema = new AvroSchemaConverter(conf).convert(fileSchema);
        ValueWriters.Struct plan = new ValueWriters.Struct(fileSchema, "");
        Support support = new Support(parquetSchema, fileSchema.toString(), new RowFields(plan), rows);

        String name = "part-00000-" + UUID.randomUUID() + "-c000.snappy.parquet";
        MemoryOutputFile out = new MemoryOutputFile(name, 1 << 20);
        try {
            Builder builder = new Builder(out, support);
            boolean relearn = dictionaries.apply(builder);
            ParquetWriter<RowSource> written;
            long count = 0;
            rows.rewind();
            try (ParquetWriter<RowSource> writer = builder
                    .withConf(conf)
                    .withCodecFactory(PureJavaCodecs.INSTANCE)
                    .withCompressionCodec(CompressionCodecName.SNAPPY)
                    .withWriteMode(ParquetFileWriter.Mode.CREATE)
                    .withRowGroupSize(ParquetDataFiles.ROW_GROUP_BYTES)
                    .withMinRowCountForPageSizeCheck(ParquetDataFiles.MIN_ROWS_PER_SIZE_CHECK)
                    .build()) {
                written = writer;
                while (rows.next()) {
                    writer.write(rows);
                    count++;
                }
            } catch (IOException e) {
                throw new UncheckedIOException("writing a Parquet file for " + tableRoot + " failed", e);
            }
            if (count == 0) {
                throw new IllegalArgumentException("a data file needs at least one row");
            }
            dictionaries.learn(written.getFooter(), relearn);
            DataFileStatistics stats = FooterStatistics.of(fileSchema, deltaSchema, plan, written.getFooter(), count);
            try {
                storage.put(tableRoot + "/" + name, out);
            } catch (IOException e) {
                throw new UncheckedIOException("storing data file " + name + " in " + tableRoot + " failed", e);
            }
            return new DataFile(name, out.size(), count, stats.serializeAsJson(deltaSchema));
        } finally {
            out.discard();
        }
    }

    private static final class Builder extends ParquetWriter.Builder<RowSource, Builder> {
        private final Support support;

        Builder(OutputFile file, Support support) {
            super(file);
            this.support = support;
        }

        @Override
        protected Builder self() {
            return this;
        }

        @Override
        protected WriteSupport<RowSource> getWriteSupport(ParquetConfiguration conf) {
            return support;
        }

        @Override
        protected WriteSupport<RowSource> getWriteSupport(org.apache.hadoop.conf.Configuration conf) {
            return support;
        }
    }

    /** Each "record" is the source positioned on its next row; the source writes the row's fields itself. */
    private static final class Support extends WriteSupport<RowSource> {
        private final MessageType schema;
        private final Map<String, String> footer;
        private final RowFields fields;

        Support(MessageType schema, String avroSchema, RowFields fields, RowSource rows) {
            this.schema = schema;
            // parquet-avro's footer key, so a reader that looks for the Avro schema (parquet-avro's own) finds it.
            this.footer = Map.of("parquet.avro.schema", avroSchema);
            this.fields = fields;
        }

        @Override
        public WriteContext init(ParquetConfiguration configuration) {
            return new WriteContext(schema, footer);
        }

        @Override
        public WriteContext init(org.apache.hadoop.conf.Configuration configuration) {
            return new WriteContext(schema, footer);
        }

        @Override
        public void prepareForWrite(RecordConsumer recordConsumer) {
            fields.consumer(recordConsumer);
        }

        @Override
        public void write(RowSource row) {
            RecordConsumer out = fields.consumer();
            out.startMessage();
            row.emit(fields);
            out.endMessage();
        }
    }
}
