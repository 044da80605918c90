package io.tributary.delta;

import io.airlift.compress.snappy.SnappyCompressor;
import io.airlift.compress.snappy.SnappyDecompressor;
import java.io.IOException;
import java.nio.ByteBuffer;
import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.compression.CompressionCodecFactory;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;

/**
 * Snappy for the Parquet writer in pure Java (aircompressor, already a parquet-hadoop dependency). Parquet's own
 * codec factory would load snappy-java's JNI library through Hadoop's codec classes, which is fragile in a GraalVM
 * native image; zstd would need zstd-jni. Snappy is also what every Delta reader decodes.
 */
final class PureJavaSnappy implements CompressionCodecFactory {

    static final PureJavaSnappy INSTANCE = new PureJavaSnappy();

    private PureJavaSnappy() {}

    @Override
    public BytesInputCompressor getCompressor(CompressionCodecName codecName) {
        if (codecName != CompressionCodecName.SNAPPY) {
            throw new IllegalArgumentException("only SNAPPY is configured, not " + codecName);
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
        if (codecName != CompressionCodecName.SNAPPY) {
            throw new IllegalArgumentException("only SNAPPY is configured, not " + codecName);
        }
        return new BytesInputDecompressor() {
            private final SnappyDecompressor decompressor = new SnappyDecompressor();

            @Override
            public BytesInput decompress(BytesInput bytes, int uncompressedSize) throws IOException {
                byte[] in = bytes.toByteArray();
                byte[] out = new byte[uncompressedSize];
                decompressor.decompress(in, 0, in.length, out, 0, uncompressedSize);
                return BytesInput.from(out);
            }

            @Override
            public void decompress(ByteBuffer input, int compressedSize, ByteBuffer output, int uncompressedSize) {
                decompressor.decompress(input, output);
            }

            @Override
            public void release() {}
        };
    }

    @Override
    public void release() {}
}
