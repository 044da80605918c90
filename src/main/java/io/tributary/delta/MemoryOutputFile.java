package io.tributary.delta;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import org.apache.parquet.io.OutputFile;
import org.apache.parquet.io.PositionOutputStream;

/**
 * A Parquet file built in memory until it is whole, for both Parquet files we write (data files, Kernel's
 * checkpoints): each is published with one put once complete, so a failed write leaves no partial file for a reader.
 */
final class MemoryOutputFile implements OutputFile {
    private final String path;
    private final ByteArrayOutputStream buffer;

    MemoryOutputFile(String path, int initialBytes) {
        this.path = path;
        this.buffer = new ByteArrayOutputStream(initialBytes);
    }

    byte[] bytes() {
        return buffer.toByteArray();
    }

    void writeTo(OutputStream out) throws IOException {
        buffer.writeTo(out);
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

    /** No block size: parquet-hadoop then sizes row groups by its own setting alone. */
    @Override
    public boolean supportsBlockSize() {
        return false;
    }

    @Override
    public long defaultBlockSize() {
        return 0;
    }

    @Override
    public String getPath() {
        return path;
    }
}
