package io.tributary.delta;

import java.io.IOException;
import java.util.List;
import java.util.Optional;

/** Local storage that tests subclass to interfere with individual operations. */
class ForwardingStorage implements Storage {
    private final LocalStorage delegate = new LocalStorage();

    @Override
    public String qualify(String path) {
        return delegate.qualify(path);
    }

    @Override
    public Optional<Entry> stat(String path) throws IOException {
        return delegate.stat(path);
    }

    @Override
    public List<Entry> listFrom(String path) throws IOException {
        return delegate.listFrom(path);
    }

    @Override
    public void walk(String dir, java.util.function.Consumer<Entry> visitor) throws IOException {
        delegate.walk(dir, visitor);
    }

    @Override
    public boolean hasChildren(String dir) throws IOException {
        return delegate.hasChildren(dir);
    }

    @Override
    public byte[] read(String path) throws IOException {
        return delegate.read(path);
    }

    @Override
    public SeekableStream openSeekable(String path, long knownLength) throws IOException {
        return delegate.openSeekable(path, knownLength);
    }

    @Override
    public void put(String path, byte[] data) throws IOException {
        delegate.put(path, data);
    }

    @Override
    public void putIfAbsent(String path, byte[] data) throws IOException {
        delegate.putIfAbsent(path, data);
    }

    @Override
    public boolean delete(String path) throws IOException {
        return delegate.delete(path);
    }

    @Override
    public void deleteRecursively(String dir) throws IOException {
        delegate.deleteRecursively(dir);
    }
}
