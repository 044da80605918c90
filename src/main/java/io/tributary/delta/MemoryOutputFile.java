package io.tributary.delta;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.SequenceInputStream;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.apache.parquet.io.OutputFile;
import org.apache.parquet.io.PositionOutputStream;

/**
 * A Parquet file built in memory until it is whole, for both Parquet files we write (data files, Kernel's
 * checkpoints): each is published with one put once complete, so a failed write leaves no partial file for a reader.
 *
 * <p>Held in chunks and stored from them ({@link Storage#put(String, MemoryOutputFile)}), never as one array: a
 * {@code ByteArrayOutputStream} doubled its array as the file grew and {@code toByteArray} copied it whole, so a 64 MB
 * data file (a batch of 300 kB records) took up to three times its size at once, which ran a 512 MB server out of
 * heap on one stream. Past {@link #IN_MEMORY} bytes the rest goes to a temporary file of the local disk (a compaction
 * writes files of up to 128 MB), deleted by {@link #close}.
 */
final class MemoryOutputFile implements OutputFile, AutoCloseable {
    /** The largest chunk: past it the file grows by chunks of this size, so no allocation is ever large. */
    static final int MAX_CHUNK = 4 << 20;
    /** What a file keeps in memory; the rest spills to a temporary file. */
    static final long IN_MEMORY = 16L << 20;

    private final String path;
    private final List<byte[]> chunks = new ArrayList<>();
    private byte[] current;
    private int used;
    private long size;
    private final long inMemory;
    /** The bytes past {@code inMemory}, once there are any. */
    private java.nio.file.Path spill;
    private OutputStream spillOut;

    MemoryOutputFile(String path, int initialBytes) {
        this(path, initialBytes, IN_MEMORY);
    }

    MemoryOutputFile(String path, int initialBytes, long inMemory) {
        this.path = path;
        this.inMemory = inMemory;
        this.current = new byte[Math.max(1, Math.min(initialBytes, MAX_CHUNK))];
        chunks.add(current);
    }

    /** Whether part of the file is on the local disk (for tests). */
    boolean spilled() {
        return spill != null;
    }

    /** {@link #close} for a finally block: a temporary file that cannot be deleted is only logged. */
    void discard() {
        try {
            close();
        } catch (IOException e) {
            org.jboss.logging.Logger.getLogger(MemoryOutputFile.class).warnf("cannot delete the temporary part of %s: %s",
                    path, e.getMessage());
        }
    }

    /** Deletes the spilled part, if any. */
    @Override
    public void close() throws IOException {
        if (spillOut != null) {
            spillOut.close();
            spillOut = null;
        }
        if (spill != null) {
            java.nio.file.Files.deleteIfExists(spill);
            spill = null;
        }
    }

    private void finishSpill() throws IOException {
        if (spillOut != null) {
            spillOut.flush();
        }
    }

    long size() {
        return size;
    }

    /** The whole file as one array (a copy): for small files, such as checkpoints read back at once. */
    byte[] bytes() {
        if (size > Integer.MAX_VALUE - 8) {
            throw new IllegalStateException(path + " is too large for one array: " + size + " bytes");
        }
        try (InputStream in = open()) {
            return in.readAllBytes();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException("reading back " + path + " from the local disk failed", e);
        }
    }

    void writeTo(OutputStream out) throws IOException {
        for (int i = 0; i < chunks.size(); i++) {
            out.write(chunks.get(i), 0, length(i));
        }
        if (spill != null) {
            finishSpill();
            java.nio.file.Files.copy(spill, out);
        }
    }

    /** The file's bytes from the start, read from the chunks in place (and the spilled part); each call a new stream. */
    InputStream open() throws IOException {
        List<InputStream> parts = new ArrayList<>(chunks.size() + 1);
        for (int i = 0; i < chunks.size(); i++) {
            parts.add(new ByteArrayInputStream(chunks.get(i), 0, length(i)));
        }
        if (spill != null) {
            finishSpill();
            parts.add(new java.io.BufferedInputStream(java.nio.file.Files.newInputStream(spill), 1 << 16));
        }
        return new SequenceInputStream(Collections.enumeration(parts));
    }

    private int length(int chunk) {
        return chunk == chunks.size() - 1 ? used : chunks.get(chunk).length;
    }

    private void write(int b) throws IOException {
        if (used == current.length) {
            if (spilling()) {
                spillOut().write(b);
                size++;
                return;
            }
            grow();
        }
        current[used++] = (byte) b;
        size++;
    }

    /** The memory part is full: the bytes from here on go to the temporary file. */
    private boolean spilling() {
        return spill != null || size >= inMemory;
    }

    private OutputStream spillOut() throws IOException {
        if (spillOut == null) {
            try {
                spill = java.nio.file.Files.createTempFile("tributary-", ".parquet.part");
                spillOut = new java.io.BufferedOutputStream(java.nio.file.Files.newOutputStream(spill), 1 << 16);
            } catch (IOException e) {
                throw new IOException("cannot spill " + path + " past " + inMemory + " bytes to a temporary file "
                        + "(java.io.tmpdir: " + System.getProperty("java.io.tmpdir") + "): " + e.getMessage(), e);
            }
        }
        return spillOut;
    }

    /** A new chunk, twice the last up to {@link #MAX_CHUNK}: few chunks for a small file, none large. */
    private void grow() {
        current = new byte[(int) Math.min(MAX_CHUNK, Math.max(current.length * 2L, 64 * 1024))];
        chunks.add(current);
        used = 0;
    }

    private void write(byte[] b, int off, int len) throws IOException {
        while (len > 0) {
            if (used == current.length) {
                if (spilling()) {
                    spillOut().write(b, off, len);
                    size += len;
                    return;
                }
                grow();
            }
            int n = Math.min(len, current.length - used);
            System.arraycopy(b, off, current, used, n);
            used += n;
            off += n;
            len -= n;
            size += n;
        }
    }

    @Override
    public PositionOutputStream create(long blockSizeHint) {
        return new PositionOutputStream() {
            @Override
            public long getPos() {
                return size;
            }

            @Override
            public void write(int b) throws IOException {
                MemoryOutputFile.this.write(b);
            }

            @Override
            public void write(byte[] b, int off, int len) throws IOException {
                MemoryOutputFile.this.write(b, off, len);
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
