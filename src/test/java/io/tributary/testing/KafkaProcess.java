package io.tributary.testing;

import io.tributary.server.local.EmbeddedKafka;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * A KRaft broker alone in a child JVM, so a test can kill it with SIGKILL (no clean shutdown, nothing flushed by the
 * broker) and start it again on the same log directory and port. Arguments: log directory, port.
 */
public final class KafkaProcess implements AutoCloseable {
    static final String READY = "kafka-process-ready";

    private final Process process;
    private final Path log;

    public static void main(String[] args) throws Exception {
        EmbeddedKafka.start(Path.of(args[0]), Integer.parseInt(args[1]), Map.of());
        System.out.println(READY);
        Thread.currentThread().join();
    }

    private KafkaProcess(Process process, Path log) {
        this.process = process;
        this.log = log;
    }

    /** Starts the broker and waits until it serves; its output goes to {@code dir}/broker.log. */
    public static KafkaProcess start(Path dir, int port, Duration timeout) throws Exception {
        Path log = dir.resolve("broker.log");
        Files.createDirectories(dir);
        List<String> cmd = List.of(Paths.get(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx512m",
                "-cp", System.getProperty("java.class.path"), KafkaProcess.class.getName(),
                dir.resolve("data").toString(), String.valueOf(port));
        long before = Files.exists(log) ? Files.readAllLines(log).stream().filter(READY::equals).count() : 0;
        Process process;
        try {
            process = new ProcessBuilder(cmd).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        while (Files.readAllLines(log).stream().filter(READY::equals).count() == before) {
            if (!process.isAlive() || System.nanoTime() > deadline) {
                process.destroyForcibly();
                throw new IllegalStateException("the broker did not start; its log:\n" + Files.readString(log));
            }
            Thread.sleep(50);
        }
        return new KafkaProcess(process, log);
    }

    /** SIGKILL, and waits until the process is gone. */
    public void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor();
    }

    @Override
    public void close() throws InterruptedException {
        kill();
    }
}
