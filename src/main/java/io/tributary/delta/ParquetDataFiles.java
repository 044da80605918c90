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

    /** Rows should not straddle row groups for files of a micro-batch; 128 MB matches Delta's default target. */
    static final long ROW_GROUP_BYTES = 128L * 1024 * 1024;

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
        byte[] bytes = out.bytes();
        try {
            storage.put(tableRoot + "/" + name, bytes);
        } catch (IOException e) {
            throw new UncheckedIOException("storing data file " + name + " in " + tableRoot + " failed", e);
        }
        return new DataFile(name, bytes.length, stats.result().getNumRecords(), stats.json());
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
