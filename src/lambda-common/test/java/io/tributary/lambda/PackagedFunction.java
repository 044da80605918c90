package io.tributary.lambda;

import io.tributary.testing.TributaryServices;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The function as deployed, run as a process: the build's {@code function.zip} (the file Terraform uploads) is
 * unzipped as Lambda unzips it into {@code /var/task}, and started the way Lambda starts it, with its settings as
 * environment variables and {@code AWS_LAMBDA_RUNTIME_API} pointing at a {@link RuntimeApi} this JVM serves:
 *
 * <ul>
 *   <li>a native build (the build's {@code quarkus-artifact.properties} says {@code type=native}): the zip's
 *       {@code bootstrap}, as the {@code provided.al2023} runtime runs it; Quarkus's poll loop takes the events;
 *   <li>a JVM build: the handler {@code function.handler} names, on the zip's class path, under
 *       {@link LambdaJavaRuntime} (what the {@code java17} runtime does; a JVM-mode Quarkus Lambda has no poll loop).
 * </ul>
 *
 * <p>Nothing of the function runs in the test JVM, so the same integration tests run unchanged against both builds:
 * they see only the runtime API, the database, Kafka and the warehouse. The real services are the server tests'
 * ({@link TributaryServices}: embedded PostgreSQL, an in-process Kafka broker, a temporary warehouse); the test JVM
 * gets the same settings as system properties ({@link RegistryRows} reads them). Register with
 * {@code @RegisterExtension static final PackagedFunction FUNCTION = new PackagedFunction(() -> Map.of(...))}; the
 * supplier's settings (started in {@code beforeAll}, before the function) are added to the services'.
 *
 * <p>Also used by the bench ({@link #launch}), which times the same process start.
 */
public final class PackagedFunction implements BeforeAllCallback, AfterAllCallback {
    private final Supplier<Map<String, String>> extra;
    private final DeploymentSecretsEndpoint secrets = new DeploymentSecretsEndpoint();
    private Map<String, String> config;
    private RuntimeApi api;
    private Process process;
    private Path log;
    private com.sun.net.httpserver.HttpServer secretsServer;

    public PackagedFunction(Supplier<Map<String, String>> extra) {
        this.extra = extra;
    }

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        config = new LinkedHashMap<>(new TributaryServices().start());
        config.putAll(extra.get());
        config.forEach(System::setProperty);
        // As deployed (terraform/functions.tf): the database credentials and the data key only as secret ARNs.
        Map<String, String> deployed = secrets.deploy(config);
        if (!deployed.containsKey("AWS_ENDPOINT_URL_SECRETS_MANAGER")) {
            secretsServer = com.sun.net.httpserver.HttpServer.create(
                    new java.net.InetSocketAddress(java.net.InetAddress.getLoopbackAddress(), 0), 0);
            secretsServer.createContext("/", exchange -> {
                try (exchange) {
                    if (!secrets.handle(exchange, exchange.getRequestHeaders().getFirst("X-Amz-Target"),
                            exchange.getRequestBody().readAllBytes())) {
                        exchange.sendResponseHeaders(400, -1);
                    }
                }
            });
            secretsServer.start();
            deployed.put("AWS_ENDPOINT_URL_SECRETS_MANAGER", "http://127.0.0.1:" + secretsServer.getAddress().getPort());
            deployed.putIfAbsent("AWS_REGION", "eu-west-1");
            deployed.putIfAbsent("AWS_ACCESS_KEY_ID", "it-access-key");
            deployed.putIfAbsent("AWS_SECRET_ACCESS_KEY", "it-secret-key");
        }
        api = RuntimeApi.start();
        Path build = buildDir();
        log = build.resolve("function-it-" + context.getRequiredTestClass().getSimpleName() + ".log");
        process = launch(build, deployed, api, List.of(), log);
        System.out.println("Started the packaged function (" + describe(build) + ") as process " + process.pid()
                + "; its log: " + log);
        awaitInit(Duration.ofMinutes(3));
        if (!secrets.read.containsAll(List.of(DeploymentSecretsEndpoint.DATABASE_ARN,
                DeploymentSecretsEndpoint.SECRETS_KEY_ARN))) {
            throw new AssertionError("the function did not read its deployment secrets from Secrets Manager (read: "
                    + secrets.read + "): " + tail());
        }
    }

    /**
     * The Secrets Manager secrets the function is deployed with; a test whose own fake serves
     * {@code AWS_ENDPOINT_URL_SECRETS_MANAGER} passes its Secrets Manager calls to it.
     */
    public DeploymentSecretsEndpoint deploymentSecrets() {
        return secrets;
    }

    /**
     * Waits until the function asks for its first event, as Lambda does before invoking it: its init (Quarkus's
     * start, Flyway's migrations) is over, so tests may use the registry schema it created.
     */
    private void awaitInit(Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            try {
                api.awaitFirstPoll(Duration.ofMillis(200));
                return;
            } catch (java.util.concurrent.TimeoutException notYet) {
                if (!process.isAlive()) {
                    throw new AssertionError("the function exited with " + process.exitValue() + " during init: "
                            + tail());
                }
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("the function did not finish its init within " + timeout + ": " + tail());
                }
            }
        }
    }

    @Override
    public void afterAll(ExtensionContext context) throws Exception {
        if (process != null) {
            process.destroy();
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        }
        if (api != null) {
            api.close();
        }
        if (secretsServer != null) {
            secretsServer.stop(0);
        }
    }

    public RuntimeApi api() {
        return api;
    }

    /**
     * Invokes the function through {@code invokedArn}; a function that exited (failed to start) fails at once with
     * its log's tail instead of at the timeout.
     */
    public RuntimeApi.Invocation invoke(String invokedArn, String event, Duration timeout) {
        if (!process.isAlive()) {
            throw new AssertionError("the function exited with " + process.exitValue() + ": " + tail());
        }
        try {
            return api.invoke(invokedArn, event, timeout);
        } catch (AssertionError e) {
            throw new AssertionError(e.getMessage() + "; function log: " + tail(), e);
        }
    }

    /**
     * Fails unless the poll now waiting at the runtime API is a connection held by the function's process (found
     * through {@code /proc}): the events this test invoked were answered by that process, not by anything in this
     * JVM or elsewhere on the machine.
     */
    public void assertPolledByTheFunction() throws InterruptedException {
        if (process.pid() == ProcessHandle.current().pid()) {
            throw new AssertionError("the function runs in the test JVM");
        }
        int port = api.awaitWaitingPoll(Duration.ofSeconds(30));
        Set<Long> pids = new HashSet<>();
        pids.add(process.pid());
        process.descendants().forEach(d -> pids.add(d.pid()));
        String inode = inodeOf(port, api.port());
        boolean owned = inode != null && pids.stream().anyMatch(pid -> socketInodes(pid).contains(inode));
        if (!owned) {
            throw new AssertionError("the runtime API was polled from port " + port + ", a socket that the function's "
                    + "process " + process.pid() + " does not hold");
        }
    }

    /** The build's output directory, {@code target/<function>} (set by the pom's failsafe configuration). */
    public static Path buildDir() {
        return Path.of(System.getProperty("tributary.test.build-dir", "target")).toAbsolutePath();
    }

    /**
     * Unzips {@code <build>/function.zip} (once per build of it) and starts it against {@code api}, with
     * {@code settings} (property names, as a deployment's environment variables) and extra JVM options for a JVM
     * build; output goes to {@code log}.
     */
    /**
     * The JVM options a JVM-mode function runs with on Lambda (the Terraform module's {@code JAVA_TOOL_OPTIONS};
     * {@code DeployedJvmOptionsTest} holds the two together), so the integration tests and the cold-start bench start
     * the function as it is deployed.
     */
    public static final String DEPLOYED_JVM_OPTIONS = "-XX:+TieredCompilation -XX:TieredStopAtLevel=1";

    public static Process launch(Path build, Map<String, String> settings, RuntimeApi api, List<String> jvmOptions,
            Path log) throws IOException {
        Path task = unzip(build);
        List<String> cmd = new ArrayList<>();
        if (isNative(build)) {
            Path bootstrap = task.resolve("bootstrap");
            bootstrap.toFile().setExecutable(true);
            cmd.add(bootstrap.toString());
        } else {
            cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
            cmd.addAll(jvmOptions);
            cmd.add("-cp");
            cmd.add(JarOnlyClassPath.needed(jvmOptions) ? JarOnlyClassPath.of(build, runtimeClient(build), task)
                    : runtimeClient(build) + ":" + task + ":" + task.resolve("lib") + "/*");
            cmd.add(LambdaJavaRuntime.class.getName());
            cmd.add(handler(build));
        }
        ProcessBuilder builder = new ProcessBuilder(cmd).directory(task.toFile()).redirectErrorStream(true)
                .redirectOutput(log.toFile());
        Map<String, String> env = builder.environment();
        settings.forEach((k, v) -> env.put(environmentName(k), v));
        env.put("AWS_LAMBDA_RUNTIME_API", api.address());
        env.put("AWS_LAMBDA_FUNCTION_NAME", "tributary-" + build.getFileName());
        env.put("AWS_LAMBDA_FUNCTION_MEMORY_SIZE", functionProperty(build, "function.memory-mb"));
        env.put("LAMBDA_TASK_ROOT", task.toString());
        if (!isNative(build)) {
            env.put("JAVA_TOOL_OPTIONS", DEPLOYED_JVM_OPTIONS);
        }
        // A function build that still carries the REST stack opens an HTTP port no one calls on Lambda; here a fixed
        // one (8080) would collide with other runs on the machine.
        env.putIfAbsent("QUARKUS_HTTP_PORT", "0");
        Process p = builder.start();
        // A test JVM that dies without afterAll must not leave the function running.
        Runtime.getRuntime().addShutdownHook(new Thread(p::destroyForcibly));
        return p;
    }

    /** How a deployment spells a setting as an environment variable (SmallRye Config's rule; AWS_* pass as they are). */
    public static String environmentName(String property) {
        return property.replaceAll("[^A-Za-z0-9]", "_").toUpperCase(Locale.ROOT);
    }

    public static boolean isNative(Path build) {
        return "native".equals(artifactProperties(build).getProperty("type"));
    }

    public static String describe(Path build) {
        return (isNative(build) ? "native" : "JVM") + " " + build.resolve("function.zip");
    }

    private static Properties artifactProperties(Path build) {
        Properties p = new Properties();
        try (InputStream in = Files.newInputStream(build.resolve("quarkus-artifact.properties"))) {
            p.load(in);
        } catch (IOException e) {
            throw new UncheckedIOException("no quarkus-artifact.properties in " + build + ": package the function first",
                    e);
        }
        return p;
    }

    /** {@code function.<key>} of function-configs/<function>/function.properties. */
    public static String functionProperty(Path build, String key) {
        Path file = build.getParent().getParent().resolve("function-configs").resolve(build.getFileName().toString())
                .resolve("function.properties");
        Properties p = new Properties();
        try (InputStream in = Files.newInputStream(file)) {
            p.load(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return p.getProperty(key);
    }

    private static String handler(Path build) {
        return functionProperty(build, "function.handler");
    }

    /** The zip's content, as Lambda's /var/task; unzipped again only when the zip changed. */
    private static Path unzip(Path build) throws IOException {
        Path zip = build.resolve("function.zip");
        Path task = build.resolve("function-task");
        Path stamp = task.resolve(".unzipped-from");
        String version = Files.getLastModifiedTime(zip).toMillis() + " " + Files.size(zip);
        if (Files.exists(stamp) && Files.readString(stamp).equals(version)) {
            return task;
        }
        deleteTree(task);
        Files.createDirectories(task);
        try (ZipInputStream in = new ZipInputStream(Files.newInputStream(zip))) {
            for (ZipEntry e = in.getNextEntry(); e != null; e = in.getNextEntry()) {
                Path target = task.resolve(e.getName()).normalize();
                if (!target.startsWith(task)) {
                    throw new IOException("zip entry outside the task root: " + e.getName());
                }
                if (e.isDirectory()) {
                    Files.createDirectories(target);
                } else {
                    Files.createDirectories(target.getParent());
                    Files.copy(in, target, StandardCopyOption.REPLACE_EXISTING);
                }
            }
        }
        Files.writeString(stamp, version);
        return task;
    }

    /** A directory with {@link LambdaJavaRuntime}'s classes only (not the whole test class path). */
    private static Path runtimeClient(Path build) throws IOException {
        Path dir = build.resolve("lambda-java-runtime");
        Path pkg = dir.resolve(LambdaJavaRuntime.class.getPackageName().replace('.', '/'));
        Files.createDirectories(pkg);
        try {
            Path classes = Path.of(LambdaJavaRuntime.class.getProtectionDomain().getCodeSource().getLocation().toURI())
                    .resolve(LambdaJavaRuntime.class.getPackageName().replace('.', '/'));
            try (Stream<Path> files = Files.list(classes)) {
                for (Path f : files.filter(f -> f.getFileName().toString().startsWith("LambdaJavaRuntime")).toList()) {
                    Files.copy(f, pkg.resolve(f.getFileName()), StandardCopyOption.REPLACE_EXISTING);
                }
            }
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
        return dir;
    }

    private static void deleteTree(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(root)) {
            for (Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }

    private String tail() {
        try {
            String text = Files.readString(log);
            return text.length() > 3000 ? text.substring(text.length() - 3000) : text;
        } catch (IOException e) {
            return "(no log at " + log + ")";
        }
    }

    private static Set<String> socketInodes(long pid) {
        Set<String> inodes = new HashSet<>();
        try (Stream<Path> fds = Files.list(Path.of("/proc", Long.toString(pid), "fd"))) {
            for (Path fd : fds.toList()) {
                try {
                    String target = Files.readSymbolicLink(fd).toString();
                    if (target.startsWith("socket:[")) {
                        inodes.add(target.substring(8, target.length() - 1));
                    }
                } catch (IOException closedMeanwhile) {
                    // an fd closed while listing
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list the sockets of process " + pid, e);
        }
        return inodes;
    }

    /** The inode of the loopback TCP socket whose local port is {@code local} and remote port {@code remote}. */
    private static String inodeOf(int local, int remote) {
        String localHex = String.format(Locale.ROOT, ":%04X", local);
        String remoteHex = String.format(Locale.ROOT, ":%04X", remote);
        for (String table : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
            List<String> lines;
            try {
                lines = Files.readAllLines(Path.of(table));
            } catch (IOException absent) {
                continue;
            }
            for (String line : lines.subList(Math.min(1, lines.size()), lines.size())) {
                String[] f = line.trim().split("\\s+");
                if (f.length > 9 && f[1].endsWith(localHex) && f[2].endsWith(remoteHex)) {
                    return f[9];
                }
            }
        }
        return null;
    }
}
