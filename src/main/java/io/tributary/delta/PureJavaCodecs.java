package io.tributary.delta;

import io.airlift.compress.Decompressor;
import io.airlift.compress.lz4.Lz4Decompressor;
import io.airlift.compress.snappy.SnappyCompressor;
import io.airlift.compress.snappy.SnappyDecompressor;
import io.airlift.compress.zstd.ZstdDecompressor;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.util.zip.GZIPInputStream;
import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.compression.CompressionCodecFactory;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;

/**
 * Parquet compression in pure Java, for every Parquet file this code writes or reads (our data files, Spark-written
 * backfill sources, Kernel's checkpoints). Parquet's own {@code CodecFactory} loads {@code SnappyCodec} and
 * {@code ZstandardCodec} by class name and then calls snappy-java and zstd-jni over JNI, which a GraalVM native image
 * does not carry; aircompressor (a parquet-hadoop dependency) and {@code java.util.zip} need neither. Writes use
 * Snappy, what every Delta reader decodes; reads take the codecs Delta writers use (Spark: Snappy by default, zstd,
 * gzip, lz4_raw on request; checkpoints of Kernel's own writer: uncompressed). Anything else is refused by name.
 */
final class PureJavaCodecs implements CompressionCodecFactory {

    static final PureJavaCodecs INSTANCE = new PureJavaCodecs();

    private PureJavaCodecs() {}

    @Override
    public BytesInputCompressor getCompressor(CompressionCodecName codecName) {
        if (codecName != CompressionCodecName.SNAPPY) {
            throw new IllegalArgumentException("only SNAPPY is configured for writing, not " + codecName);
        }
        return new BytesInputCompressor() {
            private final SnappyCompressor compressor = new SnappyCompressor();
            private byte[] out = new byte[0];

            @Override
            public BytesInput compress(BytesInput bytes) throws IOException {
                byte[] in = bytes.toByteArray();
                int max = compressor.maxCompressedLength(in.length);
                if (out.length < max) {
                    out = new byte[max];
                }
                int n = compressor.compress(in, 0, in.length, out, 0, out.length);
                // Parquet copies the page before the next compress call, so the buffer can be reused.
                return BytesInput.from(out, 0, n);
            }

            @Override
            public CompressionCodecName getCodecName() {
                return CompressionCodecName.SNAPPY;
            }

            @Override
            public void release() {}
        };
    }

    @Override
    public BytesInputDecompressor getDecompressor(CompressionCodecName codecName) {
        switch (codecName) {
            case UNCOMPRESSED:
                return new ArrayDecompressor((in, n) -> in.length == n ? in : java.util.Arrays.copyOf(in, n));
            case SNAPPY:
                return block(new SnappyDecompressor());
            case ZSTD:
                return block(new ZstdDecompressor());
            case LZ4_RAW:
                return block(new Lz4Decompressor());
            case GZIP:
                return new ArrayDecompressor(PureJavaCodecs::gunzip);
            default:
                throw new UnsupportedOperationException("Parquet pages compressed with " + codecName
                        + " cannot be read: supported are UNCOMPRESSED, SNAPPY, ZSTD, LZ4_RAW and GZIP");
        }
    }

    private static BytesInputDecompressor block(Decompressor decompressor) {
        return new ArrayDecompressor((in, n) -> {
            byte[] out = new byte[n];
            int written = decompressor.decompress(in, 0, in.length, out, 0, n);
            if (written != n) {
                throw new IOException("a Parquet page decompressed to " + written + " bytes, its header says " + n);
            }
            return out;
        });
    }

    private static byte[] gunzip(byte[] in, int n) throws IOException {
        try (InputStream gz = new GZIPInputStream(new ByteArrayInputStream(in))) {
            byte[] out = gz.readNBytes(n);
            if (out.length != n) {
                throw new IOException("a gzip Parquet page decompressed to " + out.length + " bytes, its header says " + n);
            }
            return out;
        }
    }

    @FunctionalInterface
    private interface Inflate {
        byte[] apply(byte[] compressed, int uncompressedSize) throws IOException;
    }

    /** Whole pages as byte arrays: Parquet hands over one page at a time and knows its uncompressed size. */
    private static final class ArrayDecompressor implements BytesInputDecompressor {
        private final Inflate inflate;

        ArrayDecompressor(Inflate inflate) {
            this.inflate = inflate;
        }

        @Override
        public BytesInput decompress(BytesInput bytes, int uncompressedSize) throws IOException {
            return BytesInput.from(inflate.apply(bytes.toByteArray(), uncompressedSize));
        }

        @Override
        public void decompress(ByteBuffer input, int compressedSize, ByteBuffer output, int uncompressedSize)
                throws IOException {
            byte[] in = new byte[compressedSize];
            input.get(in);
            output.put(inflate.apply(in, uncompressedSize));
        }

        @Override
        public void release() {}
    }

    @Override
    public void release() {}
}
