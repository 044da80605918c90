package io.tributary.delta;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/** Local file system storage. Qualified paths look like {@code file:/abs/path}, as Kernel writes them. */
final class LocalStorage implements Storage {

    @Override
    public String qualify(String path) {
        return "file:" + toPath(path).toString();
    }

    static Path toPath(String path) {
        String p = path;
        if (p.startsWith("file:")) {
            p = p.substring("file:".length());
            // file:///a, file://localhost/a and file:/a all name /a
            if (p.startsWith("//")) {
                int slash = p.indexOf('/', 2);
                p = slash < 0 ? "/" : p.substring(slash);
            }
        }
        return Paths.get(p).toAbsolutePath().normalize();
    }

    @Override
    public Optional<Entry> stat(String path) throws IOException {
        Path p = toPath(path);
        try {
            BasicFileAttributes a = Files.readAttributes(p, BasicFileAttributes.class);
            return Optional.of(new Entry(qualify(path), a.isDirectory() ? 0 : a.size(), a.lastModifiedTime().toMillis()));
        } catch (NoSuchFileException e) {
            return Optional.empty();
        }
    }

    @Override
    public List<Entry> listFrom(String path) throws IOException {
        Path p = toPath(path);
        Path dir = p.getParent();
        String from = p.getFileName().toString();
        if (!Files.isDirectory(dir)) {
            throw new FileNotFoundException("no directory " + dir);
        }
        List<Entry> out = new ArrayList<>();
        try (DirectoryStream<Path> children = Files.newDirectoryStream(dir)) {
            for (Path child : children) {
                String name = child.getFileName().toString();
                if (name.compareTo(from) < 0) {
                    continue;
                }
                BasicFileAttributes a;
                try {
                    a = Files.readAttributes(child, BasicFileAttributes.class);
                } catch (NoSuchFileException vanished) {
                    continue; // deleted between listing and stat, e.g. a writer's temp file
                }
                if (a.isRegularFile()) {
                    out.add(new Entry("file:" + child, a.size(), a.lastModifiedTime().toMillis()));
                }
            }
        }
        out.sort(Comparator.comparing(e -> e.path().substring(e.path().lastIndexOf('/') + 1)));
        return out;
    }

    @Override
    public void walk(String dir, java.util.function.Consumer<Entry> visitor) throws IOException {
        Path root = toPath(dir);
        if (!Files.isDirectory(root)) {
            return;
        }
        Files.walkFileTree(root, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes a) {
                if (a.isRegularFile()) {
                    visitor.accept(new Entry("file:" + file, a.size(), a.lastModifiedTime().toMillis()));
                }
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFileFailed(Path file, IOException e) throws IOException {
                if (e instanceof NoSuchFileException) {
                    return FileVisitResult.CONTINUE; // deleted while walking, e.g. a writer's temp file
                }
                throw e;
            }
        });
    }

    @Override
    public boolean hasChildren(String dir) throws IOException {
        Path d = toPath(dir);
        if (!Files.isDirectory(d)) {
            return false;
        }
        try (DirectoryStream<Path> children = Files.newDirectoryStream(d)) {
            return children.iterator().hasNext();
        }
    }

    @Override
    public byte[] read(String path) throws IOException {
        try {
            return Files.readAllBytes(toPath(path));
        } catch (NoSuchFileException e) {
            throw new FileNotFoundException(path);
        }
    }

    @Override
    public SeekableStream openSeekable(String path, long knownLength) throws IOException {
        RandomAccessFile file;
        try {
            file = new RandomAccessFile(toPath(path).toFile(), "r");
        } catch (FileNotFoundException e) {
            throw new FileNotFoundException(path);
        }
        return new SeekableStream() {
            @Override
            long position() throws IOException {
                return file.getFilePointer();
            }

            @Override
            void seek(long position) throws IOException {
                file.seek(position);
            }

            @Override
            long length() throws IOException {
                return file.length();
            }

            @Override
            public int read() throws IOException {
                return file.read();
            }

            @Override
            public int read(byte[] b, int off, int len) throws IOException {
                return file.read(b, off, len);
            }

            @Override
            public void close() throws IOException {
                file.close();
            }
        };
    }

    @Override
    public void put(String path, byte[] data) throws IOException {
        publish(toPath(path), data(data));
    }

    @Override
    public void put(String path, MemoryOutputFile file) throws IOException {
        publish(toPath(path), channel -> file.writeTo(java.nio.channels.Channels.newOutputStream(channel)));
    }

    private static void publish(Path target, Body body) throws IOException {
        Path temp = writeTemp(target, body);
        try {
            try {
                Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(temp, target, StandardCopyOption.REPLACE_EXISTING);
            }
        } finally {
            Files.deleteIfExists(temp);
        }
    }

    /**
     * A hard link fails when the target exists and is atomic across processes, unlike rename (which replaces) or
     * check-then-rename (which races). The content is complete before the link makes it visible.
     */
    @Override
    public void putIfAbsent(String path, byte[] data) throws IOException {
        Path target = toPath(path);
        Path temp = writeTemp(target, data(data));
        try {
            Files.createLink(target, temp);
        } finally {
            Files.deleteIfExists(temp);
        }
    }

    /** What a temporary file is filled with. */
    private interface Body {
        void writeTo(FileChannel channel) throws IOException;
    }

    private static Body data(byte[] data) {
        return channel -> {
            ByteBuffer buffer = ByteBuffer.wrap(data);
            while (buffer.hasRemaining()) {
                channel.write(buffer);
            }
        };
    }

    private static Path writeTemp(Path target, Body body) throws IOException {
        Files.createDirectories(target.getParent());
        Path temp = target.resolveSibling("." + target.getFileName() + "." + UUID.randomUUID() + ".tmp");
        // One fsync per file before it becomes visible: with O_SYNC (StandardOpenOption.SYNC) every 8 KB chunk of a
        // multi-megabyte data file was a synchronous disk write.
        try (FileChannel channel = FileChannel.open(temp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            body.writeTo(channel);
            channel.force(true);
        }
        return temp;
    }

    @Override
    public boolean delete(String path) throws IOException {
        return Files.deleteIfExists(toPath(path));
    }

    @Override
    public void deleteRecursively(String dir) throws IOException {
        Path root = toPath(dir);
        // A writer fenced out by the delete may still be writing a data file here (it removes the file itself once
        // its commit is refused): a file that appears during the walk leaves its directory not empty, one that
        // vanishes cannot be visited. Neither may fail the delete, so the walk runs again over what is left.
        for (int attempt = 1; ; attempt++) {
            if (!Files.exists(root)) {
                return;
            }
            try {
                walkDeleting(root);
                return;
            } catch (java.nio.file.DirectoryNotEmptyException e) {
                if (attempt == 50) {
                    throw e;
                }
                try {
                    Thread.sleep(10); // the writer's own clean-up usually comes within this
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    throw e;
                }
            }
        }
    }

    private static void walkDeleting(Path root) throws IOException {
        Files.walkFileTree(root, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                Files.deleteIfExists(file);
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFileFailed(Path file, IOException exc) throws IOException {
                if (exc instanceof java.nio.file.NoSuchFileException) {
                    return FileVisitResult.CONTINUE;
                }
                throw exc;
            }

            @Override
            public FileVisitResult postVisitDirectory(Path d, IOException exc) throws IOException {
                if (exc != null && !(exc instanceof java.nio.file.NoSuchFileException)) {
                    throw exc;
                }
                Files.deleteIfExists(d);
                return FileVisitResult.CONTINUE;
            }
        });
    }
}
