package io.tributary.testing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** A tool a test runs as a user would (node, npm, bash), its output and exit code; -1 when it could not start or timed out. */
public record Command(int code, String output) {

    public static Command run(Path dir, long timeoutSeconds, Map<String, String> env, String... command)
            throws InterruptedException {
        ProcessBuilder builder = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true);
        builder.environment().putAll(env);
        Process process;
        byte[] out;
        try {
            process = builder.start();
            out = process.getInputStream().readAllBytes();
        } catch (IOException e) {
            return new Command(-1, e.getMessage());
        }
        if (!process.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            return new Command(-1, new String(out, StandardCharsets.UTF_8) + "\n(timed out)");
        }
        return new Command(process.exitValue(), new String(out, StandardCharsets.UTF_8));
    }
}
