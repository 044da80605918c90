package io.tributary.delta;

import io.delta.kernel.defaults.engine.fileio.FileIO;
import io.delta.kernel.defaults.engine.fileio.InputFile;
import io.delta.kernel.defaults.engine.fileio.OutputFile;
import io.delta.kernel.defaults.engine.fileio.PositionOutputStream;
import io.delta.kernel.defaults.engine.fileio.SeekableInputStream;
import io.delta.kernel.utils.CloseableIterator;
import io.delta.kernel.utils.FileStatus;
import java.io.ByteArrayOutputStream;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;

/**
 * Kernel's file I/O over our {@link Storage}, so Kernel never touches a Hadoop FileSystem or a LogStore (whose
 * local rename and single-JVM S3 lock would let concurrent processes lose commits). Commit files go through
 * {@link Storage#putIfAbsent}, which is what makes several writers safe.
 */
final class StorageFileIO implements FileIO {
    private final Storage storage;

    StorageFileIO(Storage storage) {
        this.storage = storage;
    }

    @Override
    public CloseableIterator<FileStatus> listFrom(String filePath) throws IOException {
        List<Storage.Entry> entries = storage.listFrom(filePath);
        Iterator<Storage.Entry> it = entries.iterator();
        return new CloseableIterator<>() {
            @Override
            public boolean hasNext() {
                return it.hasNext();
            }

            @Override
            public FileStatus next() {
                Storage.Entry e = it.next();
                return FileStatus.of(e.path(), e.size(), e.modificationTime());
            }

            @Override
            public void close() {}
        };
    }

    @Override
    public FileStatus getFileStatus(String path) throws IOException {
        Storage.Entry e = storage.stat(path).orElseThrow(() -> new FileNotFoundException(path));
        return FileStatus.of(e.path(), e.size(), e.modificationTime());
    }

    @Override
    public String resolvePath(String path) {
        return storage.qualify(path);
    }

    @Override
    public boolean mkdirs(String path) throws IOException {
        if (!S3Storage.isS3(path)) {
            java.nio.file.Files.createDirectories(LocalStorage.toPath(path));
        }
        return true; // object stores have no directories
    }

    @Override
    public InputFile newInputFile(String path, long fileSize) {
        return new InputFile() {
            @Override
            public long length() throws IOException {
                return fileSize > 0 ? fileSize : getFileStatus(path).getSize(); // 0 means unknown to Kernel
            }

            @Override
            public String path() {
                return path;
            }

            @Override
            public SeekableInputStream newStream() throws IOException {
                Storage.SeekableStream in = storage.openSeekable(path, fileSize);
                return new SeekableInputStream() {
                    @Override
                    public long getPos() throws IOException {
                        return in.position();
                    }

                    @Override
                    public void seek(long pos) throws IOException {
                        in.seek(pos);
                    }

                    @Override
                    public void readFully(byte[] b, int off, int len) throws IOException {
                        in.readFully(b, off, len);
                    }

                    @Override
                    public int read() throws IOException {
                        return in.read();
                    }

                    @Override
                    public int read(byte[] b, int off, int len) throws IOException {
                        return in.read(b, off, len);
                    }

                    @Override
                    public void close() throws IOException {
                        in.close();
                    }
                };
            }
        };
    }

    @Override
    public OutputFile newOutputFile(String path) {
        return new OutputFile() {
            @Override
            public String path() {
                return path;
            }

            /** Buffers the whole file and publishes it on close: checkpoints are written this way, whole or not at all. */
            @Override
            public PositionOutputStream create(boolean atomicWrite) {
                ByteArrayOutputStream buffer = new ByteArrayOutputStream(64 * 1024);
                return new PositionOutputStream() {
                    private boolean closed;

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

                    @Override
                    public void close() throws IOException {
                        if (!closed) {
                            closed = true;
                            storage.put(path, buffer.toByteArray());
                        }
                    }
                };
            }

            @Override
            public void writeAtomically(CloseableIterator<String> data, boolean overwrite) throws IOException {
                byte[] bytes;
                try (data) {
                    ByteArrayOutputStream out = new ByteArrayOutputStream(4096);
                    while (data.hasNext()) {
                        out.write(data.next().getBytes(StandardCharsets.UTF_8));
                        out.write('\n');
                    }
                    bytes = out.toByteArray();
                }
                if (overwrite) {
                    storage.put(path, bytes);
                } else {
                    storage.putIfAbsent(path, bytes);
                }
            }
        };
    }

    @Override
    public boolean delete(String path) throws IOException {
        return storage.delete(path);
    }

    @Override
    public Optional<String> getConf(String confKey) {
        return Optional.empty();
    }

    @Override
    public void copyFileAtomically(String srcPath, String destPath, boolean overwrite) throws IOException {
        byte[] bytes = storage.read(srcPath);
        if (overwrite) {
            storage.put(destPath, bytes);
        } else {
            storage.putIfAbsent(destPath, bytes);
        }
    }
}
