package io.tributary.delta;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.util.List;
import java.util.Optional;

/**
 * The one seam between the Delta code and where bytes live. Paths are fully qualified ({@code file:/...} or
 * {@code s3://bucket/key}); everything above this interface is storage-agnostic.
 */
interface Storage {

    record Entry(String path, long size, long modificationTime) {}

    /** The qualified form of a path the user or Kernel gave us; the same path always qualifies the same way. */
    String qualify(String path);

    Optional<Entry> stat(String path) throws IOException;

    /**
     * Files (not directories) in the directory of {@code path} whose names sort at or after its name, sorted by name.
     *
     * @throws FileNotFoundException when the directory does not exist (Kernel reads that as "no table")
     */
    List<Entry> listFrom(String path) throws IOException;

    /**
     * Every file below the directory {@code dir}, at any depth, in no particular order; nothing when it does not
     * exist. For vacuum, which must see files no log entry names.
     */
    void walk(String dir, java.util.function.Consumer<Entry> visitor) throws IOException;

    /** True when anything at all exists below the directory {@code dir}. */
    boolean hasChildren(String dir) throws IOException;

    byte[] read(String path) throws IOException;

    /** A stream that can seek, for Parquet footers and column chunks. */
    SeekableStream openSeekable(String path, long knownLength) throws IOException;

    /** Writes the whole file at once; readers never see a partial file. Replaces an existing file. */
    void put(String path, byte[] data) throws IOException;

    /** As {@link #put(String, byte[])}, from the file's chunks in place: a data file is never copied into one array. */
    default void put(String path, MemoryOutputFile file) throws IOException {
        put(path, file.bytes());
    }

    /**
     * Creates the file only if nothing exists at {@code path}, atomically across processes: of two writers racing
     * for the same path exactly one wins.
     *
     * @throws java.nio.file.FileAlreadyExistsException when the path is taken
     */
    void putIfAbsent(String path, byte[] data) throws IOException;

    boolean delete(String path) throws IOException;

    /** Deletes every file below the directory {@code dir} and the directory itself. */
    void deleteRecursively(String dir) throws IOException;

    /** A seekable byte stream; positions are absolute offsets into the file. */
    abstract class SeekableStream extends java.io.InputStream {
        abstract long position() throws IOException;

        abstract void seek(long position) throws IOException;

        abstract long length() throws IOException;

        void readFully(byte[] b, int off, int len) throws IOException {
            int done = 0;
            while (done < len) {
                int n = read(b, off + done, len - done);
                if (n < 0) {
                    throw new java.io.EOFException("unexpected end of file after " + done + " of " + len + " bytes");
                }
                done += n;
            }
        }
    }
}
