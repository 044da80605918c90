package io.tributary.lambda;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;

/**
 * The class path of a JVM-mode function for AppCDS (bench/lambda with {@code BENCH_APPCDS=1}): the JVM refuses to
 * create or use a dynamic archive when a non-empty directory is on the class path ("Cannot have non-empty directory
 * in paths"), and a function's classes sit in the zip's root directory, as does Lambda's /var/task. So the root's
 * classes and the runtime client's are packed into jars first; the zip's own jars are used as they are.
 */
final class JarOnlyClassPath {
    private JarOnlyClassPath() {}

    static boolean needed(List<String> jvmOptions) {
        return jvmOptions.stream().anyMatch(o -> o.startsWith("-XX:ArchiveClassesAtExit")
                || o.startsWith("-XX:SharedArchiveFile"));
    }

    static String of(Path build, Path runtimeClient, Path task) throws IOException {
        Path client = jar(runtimeClient, build.resolve("lambda-java-runtime.jar"), false);
        Path classes = jar(task, build.resolve("function-classes.jar"), true);
        return client + ":" + classes + ":" + task.resolve("lib") + "/*";
    }

    /** {@code dir}'s files in a jar, rewritten only when missing (the task is unzipped afresh for a new zip). */
    private static Path jar(Path dir, Path jar, boolean skipLib) throws IOException {
        if (Files.exists(jar) && Files.getLastModifiedTime(jar).compareTo(Files.getLastModifiedTime(dir)) > 0) {
            return jar;
        }
        try (OutputStream out = Files.newOutputStream(jar); ZipOutputStream zip = new ZipOutputStream(out);
                Stream<Path> files = Files.walk(dir)) {
            for (Path f : files.filter(Files::isRegularFile).toList()) {
                String name = dir.relativize(f).toString();
                if (skipLib && (name.startsWith("lib/") || name.startsWith("."))) {
                    continue;
                }
                zip.putNextEntry(new ZipEntry(name));
                Files.copy(f, zip);
                zip.closeEntry();
            }
        }
        return jar;
    }
}
