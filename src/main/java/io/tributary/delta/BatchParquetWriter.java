package io.tributary.delta;

import io.delta.kernel.data.ArrayValue;
import io.delta.kernel.data.ColumnVector;
import io.delta.kernel.data.ColumnarBatch;
import io.delta.kernel.data.FilteredColumnarBatch;
import io.delta.kernel.data.MapValue;
import io.delta.kernel.defaults.engine.fileio.FileIO;
import io.delta.kernel.defaults.engine.fileio.PositionOutputStream;
import io.delta.kernel.types.ArrayType;
import io.delta.kernel.types.BinaryType;
import io.delta.kernel.types.BooleanType;
import io.delta.kernel.types.ByteType;
import io.delta.kernel.types.DataType;
import io.delta.kernel.types.DateType;
import io.delta.kernel.types.DecimalType;
import io.delta.kernel.types.DoubleType;
import io.delta.kernel.types.FloatType;
import io.delta.kernel.types.IntegerType;
import io.delta.kernel.types.LongType;
import io.delta.kernel.types.MapType;
import io.delta.kernel.types.ShortType;
import io.delta.kernel.types.StringType;
import io.delta.kernel.types.StructField;
import io.delta.kernel.types.StructType;
import io.delta.kernel.types.TimestampNTZType;
import io.delta.kernel.types.TimestampType;
import io.delta.kernel.utils.CloseableIterator;
import java.io.IOException;
import java.math.BigDecimal;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.parquet.conf.ParquetConfiguration;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.hadoop.ParquetFileWriter;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.api.WriteSupport;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.io.OutputFile;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.io.api.RecordConsumer;
import org.apache.parquet.schema.MessageType;

/**
 * Writes Kernel's column batches (its checkpoints, every tenth commit) as one Parquet file without Hadoop. Kernel's
 * own writer cannot run without it: its write support only implements {@code init(org.apache.hadoop.conf
 * .Configuration)}, so parquet-hadoop builds a Hadoop {@code Configuration} for it, and Hadoop's two jars are 50 MB of
 * every function zip. This one is parquet-hadoop's {@code ParquetWriter} on a Parquet {@link OutputFile} and a
 * {@link PlainParquetConfiguration}, which load no Hadoop class, with Kernel's schema ({@link BatchParquetSchema}) and
 * Snappy pages from {@link PureJavaCodecs} (what Spark's checkpoints use). The file is built in memory and published
 * with one put-if-absent once complete, so a failed write leaves no partial checkpoint for a reader to trip on
 * (checkpoints are a few MB: one row per live file).
 */
final class BatchParquetWriter {
    private BatchParquetWriter() {}

    static void writeAtomically(FileIO fileIO, String path, CloseableIterator<FilteredColumnarBatch> data)
            throws IOException {
        MemoryOutputFile file = new MemoryOutputFile(path, 64 * 1024);
        try (data) {
            BatchWriteSupport support = null;
            ParquetWriter<Integer> writer = null;
            try {
                while (data.hasNext()) {
                    FilteredColumnarBatch filtered = data.next();
                    ColumnarBatch batch = filtered.getData();
                    if (support == null) {
                        support = new BatchWriteSupport(batch.getSchema());
                        writer = new Builder(file, support).build();
                    } else if (!support.schema.equals(batch.getSchema())) {
                        throw new IllegalArgumentException("all batches of one Parquet file must have one schema: "
                                + support.schema + " then " + batch.getSchema());
                    }
                    support.batch = batch;
                    Optional<ColumnVector> selected = filtered.getSelectionVector();
                    for (int row = 0; row < batch.getSize(); row++) {
                        if (selected.isEmpty() || (!selected.get().isNullAt(row) && selected.get().getBoolean(row))) {
                            writer.write(row);
                        }
                    }
                }
            } finally {
                if (writer != null) {
                    writer.close();
                }
            }
            if (writer == null) {
                throw new IllegalArgumentException("no rows to write to " + path + ": a Parquet file needs a schema");
            }
        }
        try (file; PositionOutputStream out = fileIO.newOutputFile(path).create(true)) {
            file.writeTo(out);
        }
    }

    private static final class Builder extends ParquetWriter.Builder<Integer, Builder> {
        private final BatchWriteSupport support;

        Builder(OutputFile file, BatchWriteSupport support) {
            super(file);
            this.support = support;
            withConf(new PlainParquetConfiguration());
            withCodecFactory(PureJavaCodecs.INSTANCE);
            withCompressionCodec(CompressionCodecName.SNAPPY);
            withWriteMode(ParquetFileWriter.Mode.CREATE);
        }

        @Override
        protected Builder self() {
            return this;
        }

        @Override
        protected WriteSupport<Integer> getWriteSupport(ParquetConfiguration conf) {
            return support;
        }

        @Override
        protected WriteSupport<Integer> getWriteSupport(org.apache.hadoop.conf.Configuration conf) {
            return support;
        }
    }

    /** Writes row {@code n} of the current batch: the record is the row's index, as in Kernel's own writer. */
    private static final class BatchWriteSupport extends WriteSupport<Integer> {
        final StructType schema;
        private final MessageType parquetSchema;
        ColumnarBatch batch;
        private RecordConsumer out;

        BatchWriteSupport(StructType schema) {
            this.schema = schema;
            this.parquetSchema = BatchParquetSchema.of(schema);
        }

        @Override
        public WriteContext init(ParquetConfiguration configuration) {
            return new WriteContext(parquetSchema, Map.of());
        }

        @Override
        public WriteContext init(org.apache.hadoop.conf.Configuration configuration) {
            return new WriteContext(parquetSchema, Map.of());
        }

        @Override
        public void prepareForWrite(RecordConsumer recordConsumer) {
            this.out = recordConsumer;
        }

        @Override
        public void write(Integer row) {
            out.startMessage();
            List<StructField> fields = schema.fields();
            for (int i = 0; i < fields.size(); i++) {
                field(fields.get(i).getName(), i, fields.get(i).getDataType(), batch.getColumnVector(i), row);
            }
            out.endMessage();
        }

        private void field(String name, int index, DataType type, ColumnVector vector, int row) {
            if (vector.isNullAt(row)) {
                return;
            }
            out.startField(name, index);
            value(type, vector, row);
            out.endField(name, index);
        }

        private void value(DataType type, ColumnVector vector, int row) {
            if (type instanceof StructType struct) {
                out.startGroup();
                for (int i = 0; i < struct.length(); i++) {
                    StructField child = struct.at(i);
                    field(child.getName(), i, child.getDataType(), vector.getChild(i), row);
                }
                out.endGroup();
            } else if (type instanceof ArrayType array) {
                ArrayValue value = vector.getArray(row);
                out.startGroup();
                if (value.getSize() > 0) {
                    out.startField("list", 0);
                    for (int i = 0; i < value.getSize(); i++) {
                        out.startGroup();
                        field("element", 0, array.getElementType(), value.getElements(), i);
                        out.endGroup();
                    }
                    out.endField("list", 0);
                }
                out.endGroup();
            } else if (type instanceof MapType map) {
                MapValue value = vector.getMap(row);
                out.startGroup();
                if (value.getSize() > 0) {
                    out.startField("key_value", 0);
                    for (int i = 0; i < value.getSize(); i++) {
                        out.startGroup();
                        field("key", 0, map.getKeyType(), value.getKeys(), i);
                        field("value", 1, map.getValueType(), value.getValues(), i);
                        out.endGroup();
                    }
                    out.endField("key_value", 0);
                }
                out.endGroup();
            } else {
                primitive(type, vector, row);
            }
        }

        private void primitive(DataType type, ColumnVector vector, int row) {
            if (type instanceof BooleanType) {
                out.addBoolean(vector.getBoolean(row));
            } else if (type instanceof ByteType) {
                out.addInteger(vector.getByte(row));
            } else if (type instanceof ShortType) {
                out.addInteger(vector.getShort(row));
            } else if (type instanceof IntegerType || type instanceof DateType) {
                out.addInteger(vector.getInt(row));
            } else if (type instanceof LongType || type instanceof TimestampType || type instanceof TimestampNTZType) {
                out.addLong(vector.getLong(row));
            } else if (type instanceof FloatType) {
                out.addFloat(vector.getFloat(row));
            } else if (type instanceof DoubleType) {
                out.addDouble(vector.getDouble(row));
            } else if (type instanceof StringType) {
                out.addBinary(Binary.fromString(vector.getString(row)));
            } else if (type instanceof BinaryType) {
                out.addBinary(Binary.fromConstantByteArray(vector.getBinary(row)));
            } else if (type instanceof DecimalType decimal) {
                decimal(decimal, vector.getDecimal(row));
            } else {
                throw new UnsupportedOperationException("a value of type " + type
                        + " cannot be written to Parquet by this engine");
            }
        }

        private void decimal(DecimalType type, BigDecimal value) {
            java.math.BigInteger unscaled = value.setScale(type.getScale()).unscaledValue();
            if (type.getPrecision() <= 9) {
                out.addInteger(unscaled.intValueExact());
            } else if (type.getPrecision() <= 18) {
                out.addLong(unscaled.longValueExact());
            } else {
                byte[] minimal = unscaled.toByteArray();
                byte[] fixed = new byte[BatchParquetSchema.decimalBytes(type.getPrecision())];
                byte sign = (byte) (unscaled.signum() < 0 ? -1 : 0);
                int pad = fixed.length - minimal.length;
                for (int i = 0; i < pad; i++) {
                    fixed[i] = sign;
                }
                System.arraycopy(minimal, 0, fixed, pad, minimal.length);
                out.addBinary(Binary.fromConstantByteArray(fixed));
            }
        }
    }
}
