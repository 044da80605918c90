package io.tributary.delta;

import io.delta.kernel.types.StructType;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.avro.Conversion;
import org.apache.avro.Conversions;
import org.apache.avro.LogicalType;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.avro.data.TimeConversions;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericFixed;
import org.apache.avro.generic.GenericRecord;
import org.apache.parquet.avro.AvroParquetWriter;
import org.apache.parquet.avro.AvroWriteSupport;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.hadoop.ParquetFileWriter;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;

/**
 * Writes rows into one Parquet data file with parquet-avro, computing Delta statistics on the way. The file is built
 * in memory and stored with one put, so S3 needs no multipart logic and no Hadoop FileSystem is involved.
 */
final class ParquetDataFiles {

    /**
     * 128 MB, Delta's default target, so that a micro-batch's file is one row group; less in a small heap: a row
     * group's pages are held until it is complete, and a compaction's 128 MB file was then held twice (pages, then
     * the file) beside the pipelines' batches. A sixteenth of the maximum heap keeps it to 32 MB in a 512 MB server.
     */
    static final long ROW_GROUP_BYTES = Math.max(8L << 20, Math.min(128L << 20,
            Runtime.getRuntime().maxMemory() / 16));

    /**
     * How many rows may go by before a page's size is looked at (parquet-hadoop's default, 100): beyond it the writer
     * estimates from the rows' sizes so far when to look next, which costs nothing for small rows, but with 100 the
     * first look at a column of 300 kB strings came after a 30 MB page, held raw and again compressed.
     */
    static final int MIN_ROWS_PER_SIZE_CHECK = 1;

    private final Storage storage;
    private final DirectParquetFiles direct;

    ParquetDataFiles(Storage storage) {
        this.storage = storage;
        this.direct = new DirectParquetFiles(storage);
    }

    /** Rows that write themselves, without row objects ({@link DirectParquetFiles}); the same file for readers. */
    DataFile write(String tableRoot, StructType deltaSchema, RowSource rows, DictionaryChoices dictionaries) {
        return direct.write(tableRoot, deltaSchema, rows, dictionaries);
    }

    DataFile write(String tableRoot, Schema rowSchema, StructType deltaSchema, Iterable<GenericRecord> rows) {
        return write(tableRoot, rowSchema, deltaSchema, rows, new DictionaryChoices());
    }

    /** @param dictionaries the table's column encodings learned so far; learns from this file too */
    DataFile write(String tableRoot, Schema rowSchema, StructType deltaSchema, Iterable<GenericRecord> rows,
            DictionaryChoices dictionaries) {
        String name = "part-00000-" + UUID.randomUUID() + "-c000.snappy.parquet";
        FileStatistics stats = new FileStatistics(rowSchema, deltaSchema);
        MemoryOutputFile out = new MemoryOutputFile(name, 1 << 20);
        try {
            AvroParquetWriter.Builder<GenericRecord> builder = AvroParquetWriter.<GenericRecord>builder(out);
            boolean relearn = dictionaries.apply(builder);
            ParquetWriter<GenericRecord> written;
            try (ParquetWriter<GenericRecord> writer = builder
                    .withSchema(fileSchema(rowSchema))
                    .withDataModel(dataModel())
                    // Three-level lists are what Spark and Kernel read; parquet-avro's default is the legacy two-level.
                    .withConf(new PlainParquetConfiguration(Map.of(AvroWriteSupport.WRITE_OLD_LIST_STRUCTURE, "false")))
                    .withCodecFactory(PureJavaCodecs.INSTANCE)
                    .withCompressionCodec(CompressionCodecName.SNAPPY)
                    .withWriteMode(ParquetFileWriter.Mode.CREATE)
                    .withRowGroupSize(ROW_GROUP_BYTES)
                    .withMinRowCountForPageSizeCheck(MIN_ROWS_PER_SIZE_CHECK)
                    .build()) {
                written = writer;
                for (GenericRecord row : rows) {
                    writer.write(row);
                    stats.add(row);
                }
            } catch (IOException e) {
                throw new UncheckedIOException("writing a Parquet file for " + tableRoot + " failed", e);
            }
            dictionaries.learn(written.getFooter(), relearn);
            try {
                storage.put(tableRoot + "/" + name, out);
            } catch (IOException e) {
                throw new UncheckedIOException("storing data file " + name + " in " + tableRoot + " failed", e);
            }
            return new DataFile(name, out.size(), stats.result().getNumRecords(), stats.json());
        } finally {
            out.discard();
        }
    }

    /**
     * The row schema with every decimal on Avro bytes moved onto a fixed of the fewest bytes its precision needs, so
     * parquet-avro writes FIXED_LEN_BYTE_ARRAY rather than BINARY decimals: Spark 4.2's vectorized Parquet reader (its
     * default) fails with a NullPointerException on BINARY decimals of precision 18 or less (bench/spark-check).
     * Records keep their names and field positions, so rows built for the row schema write through it unchanged; the
     * decimal values (BigDecimals, or raw unscaled bytes) become fixed bytes through {@link #dataModel()}.
     */
    static Schema fileSchema(Schema rowSchema) {
        return fileSchema(rowSchema, new int[1]);
    }

    private static Schema fileSchema(Schema s, int[] fixedCount) {
        switch (s.getType()) {
            case RECORD: {
                List<Schema.Field> fields = new ArrayList<>();
                for (Schema.Field f : s.getFields()) {
                    fields.add(new Schema.Field(f, fileSchema(f.schema(), fixedCount)));
                }
                Schema record = Schema.createRecord(s.getName(), s.getDoc(), s.getNamespace(), s.isError(), fields);
                s.getObjectProps().forEach(record::addProp);
                return record;
            }
            case UNION:
                return Schema.createUnion(s.getTypes().stream().map(t -> fileSchema(t, fixedCount)).toList());
            case ARRAY:
                return Schema.createArray(fileSchema(s.getElementType(), fixedCount));
            case MAP:
                return Schema.createMap(fileSchema(s.getValueType(), fixedCount));
            case BYTES:
                if (s.getLogicalType() instanceof LogicalTypes.Decimal d) {
                    Schema fixed = Schema.createFixed("tributary_decimal_" + fixedCount[0]++, null, null,
                            fixedBytes(d.getPrecision()));
                    return LogicalTypes.decimal(d.getPrecision(), d.getScale()).addToSchema(fixed);
                }
                return s;
            default:
                return s;
        }
    }

    /** The fewest two's-complement bytes that hold every unscaled value of {@code precision} digits. */
    static int fixedBytes(int precision) {
        BigInteger largest = BigInteger.TEN.pow(precision).subtract(BigInteger.ONE);
        return largest.bitLength() / 8 + 1;
    }

    /** Rows may carry either raw Avro values or the Java types of the logical-type conversions. */
    private static GenericData dataModel() {
        GenericData model = new RawDecimalData();
        model.addLogicalTypeConversion(new Conversions.DecimalConversion());
        model.addLogicalTypeConversion(new TimeConversions.DateConversion());
        model.addLogicalTypeConversion(new TimeConversions.TimestampMicrosConversion());
        model.addLogicalTypeConversion(new TimeConversions.LocalTimestampMicrosConversion());
        return model;
    }

    /**
     * Writes a raw decimal (unscaled two's-complement bytes in a ByteBuffer, as a row built for an Avro bytes decimal
     * carries it) into the fixed of {@link #fileSchema}. GenericData looks conversions up by the value's exact class
     * and resolves unions by schema name, neither of which finds a fixed for a ByteBuffer, hence the overrides.
     */
    private static final class RawDecimalData extends GenericData {
        private static final Conversion<ByteBuffer> RAW_DECIMAL = new Conversion<>() {
            @Override
            public Class<ByteBuffer> getConvertedType() {
                return ByteBuffer.class;
            }

            @Override
            public String getLogicalTypeName() {
                return "decimal";
            }

            @Override
            public GenericFixed toFixed(ByteBuffer value, Schema schema, LogicalType type) {
                byte[] unscaled = new byte[value.remaining()];
                value.duplicate().get(unscaled);
                int size = schema.getFixedSize();
                if (unscaled.length > size) {
                    throw new IllegalArgumentException("a decimal of " + unscaled.length + " bytes does not fit "
                            + ((LogicalTypes.Decimal) type).getPrecision() + " digits");
                }
                byte[] fixed = new byte[size];
                byte sign = unscaled.length > 0 && unscaled[0] < 0 ? (byte) 0xFF : 0;
                Arrays.fill(fixed, 0, size - unscaled.length, sign);
                System.arraycopy(unscaled, 0, fixed, size - unscaled.length, unscaled.length);
                return new GenericData.Fixed(schema, fixed);
            }
        };

        @Override
        @SuppressWarnings("unchecked")
        public <T> Conversion<T> getConversionByClass(Class<T> datumClass, LogicalType logicalType) {
            if (logicalType instanceof LogicalTypes.Decimal && ByteBuffer.class.isAssignableFrom(datumClass)) {
                return (Conversion<T>) RAW_DECIMAL;
            }
            return super.getConversionByClass(datumClass, logicalType);
        }

        @Override
        public int resolveUnion(Schema union, Object datum) {
            if (datum instanceof ByteBuffer) {
                List<Schema> types = union.getTypes();
                for (int i = 0; i < types.size(); i++) {
                    if (types.get(i).getType() == Schema.Type.FIXED
                            && types.get(i).getLogicalType() instanceof LogicalTypes.Decimal) {
                        return i;
                    }
                }
            }
            return super.resolveUnion(union, datum);
        }
    }
}
