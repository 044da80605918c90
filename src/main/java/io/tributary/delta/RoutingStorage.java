package io.tributary.delta;

import java.io.IOException;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Picks local or S3 storage by the path's scheme, so an external table on S3 can be read from a local warehouse and
 * vice versa. The S3 client is created on first use: a local-only deployment never builds one.
 */
final class RoutingStorage implements Storage {
    private final Storage local = new LocalStorage();
    private final Supplier<Storage> s3Factory;
    private volatile Storage s3;

    RoutingStorage(Supplier<Storage> s3Factory) {
        this.s3Factory = s3Factory;
    }

    private Storage route(String path) {
        if (!S3Storage.isS3(path)) {
            return local;
        }
        Storage s = s3;
        if (s == null) {
            synchronized (this) {
                if (s3 == null) {
                    s3 = s3Factory.get();
                }
                s = s3;
            }
        }
        return s;
    }

    @Override
    public String qualify(String path) {
        return route(path).qualify(path);
    }

    @Override
    public Optional<Entry> stat(String path) throws IOException {
        return route(path).stat(path);
    }

    @Override
    public List<Entry> listFrom(String path) throws IOException {
        return route(path).listFrom(path);
    }

    @Override
    public void walk(String dir, java.util.function.Consumer<Entry> visitor) throws IOException {
        route(dir).walk(dir, visitor);
    }

    @Override
    public boolean hasChildren(String dir) throws IOException {
        return route(dir).hasChildren(dir);
    }

    @Override
    public byte[] read(String path) throws IOException {
        return route(path).read(path);
    }

    @Override
    public SeekableStream openSeekable(String path, long knownLength) throws IOException {
        return route(path).openSeekable(path, knownLength);
    }

    @Override
    public void put(String path, byte[] data) throws IOException {
        route(path).put(path, data);
    }

    @Override
    public void put(String path, MemoryOutputFile file) throws IOException {
        route(path).put(path, file);
    }

    @Override
    public void putIfAbsent(String path, byte[] data) throws IOException {
        route(path).putIfAbsent(path, data);
    }

    @Override
    public boolean delete(String path) throws IOException {
        return route(path).delete(path);
    }

    @Override
    public void deleteRecursively(String dir) throws IOException {
        route(dir).deleteRecursively(dir);
    }
}
