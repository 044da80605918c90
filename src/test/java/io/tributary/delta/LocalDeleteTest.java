package io.tributary.delta;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A stream's DELETE removes its table while a writer the delete fenced out may still be writing a data file there
 * (another server's pipeline, a push committer): it writes the file, finds its commit refused and removes the file.
 * Files appearing and vanishing during the walk must not fail the delete (it answered 500).
 */
class LocalDeleteTest {

    @TempDir
    Path dir;

    @Test
    void filesWrittenAndRemovedDuringTheDeleteDoNotFailIt() throws Exception {
        LocalStorage storage = new LocalStorage();
        Path table = dir.resolve("t");
        AtomicBoolean stop = new AtomicBoolean();
        Thread writer = new Thread(() -> {
            for (long i = 0; !stop.get(); i++) {
                Path file = table.resolve("part-" + i + ".parquet");
                try {
                    Files.createDirectories(table);
                    Files.write(file, new byte[16]);
                    Thread.sleep(1);
                    Files.deleteIfExists(file);
                } catch (InterruptedException e) {
                    return;
                } catch (IOException e) {
                    // the delete removed the directory under it: the next round creates it again
                }
            }
        });
        writer.start();
        try {
            for (int round = 0; round < 300; round++) {
                Files.createDirectories(table.resolve("_delta_log"));
                for (int f = 0; f < 5; f++) {
                    Files.write(table.resolve("data-" + f + ".parquet"), new byte[16]);
                }
                storage.deleteRecursively(table.toString());
            }
        } finally {
            stop.set(true);
            writer.join();
        }
        storage.deleteRecursively(table.toString());
        assertThat(Files.exists(table)).isFalse();
    }
}
