package io.tributary.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * A real S3-compatible server for tests: S3Proxy 4.1.0 as a child JVM (its runnable jar, copied to
 * {@code target/s3proxy/s3proxy.jar} by the build; in-process it would drag a Jackson that clashes with Quarkus's),
 * on 127.0.0.1 and a free port, storing objects in a directory so they survive {@link #stop()} / {@link #start()}.
 * It checks signatures against fixed credentials ({@link #ACCESS_KEY} / {@link #SECRET_KEY}); code that reads
 * credentials from the AWS default chain finds them once {@link #exportCredentials()} has run.
 *
 * <pre>
 * try (S3ProxyServer s3 = S3ProxyServer.start(tempDir)) {
 *     s3.createBucket("warehouse");
 *     String endpoint = s3.endpoint();   // http://127.0.0.1:port, path-style
 * }
 * </pre>
 */
public final class S3ProxyServer implements AutoCloseable {
    public static final String ACCESS_KEY = "tributary-test";
    public static final String SECRET_KEY = "tributary-test-secret";
    public static final String REGION = "us-east-1";

    private final Path dataDir;
    private final Path logFile;
    private final int port;
    private Process process;

    private S3ProxyServer(Path workDir) throws IOException {
        this.dataDir = Files.createDirectories(workDir.resolve("s3proxy-data"));
        this.logFile = workDir.resolve("s3proxy.log");
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            this.port = s.getLocalPort();
        }
    }

    /** Starts a server whose objects live below {@code workDir}. */
    public static S3ProxyServer start(Path workDir) {
        try {
            S3ProxyServer server = new S3ProxyServer(workDir);
            server.start();
            return server;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** (Re)starts the process on the same port and data directory. */
    public synchronized void start() {
        if (process != null && process.isAlive()) {
            return;
        }
        try {
            Path props = dataDir.getParent().resolve("s3proxy.properties");
            Properties p = new Properties();
            p.setProperty("s3proxy.endpoint", endpoint());
            p.setProperty("s3proxy.authorization", "aws-v2-or-v4");
            p.setProperty("s3proxy.identity", ACCESS_KEY);
            p.setProperty("s3proxy.credential", SECRET_KEY);
            p.setProperty("jclouds.provider", "filesystem");
            p.setProperty("jclouds.filesystem.basedir", dataDir.toString());
            p.setProperty("jclouds.identity", ACCESS_KEY);
            p.setProperty("jclouds.credential", SECRET_KEY);
            try (Writer w = Files.newBufferedWriter(props)) {
                p.store(w, "S3Proxy for tests");
            }
            List<String> cmd = new ArrayList<>();
            cmd.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
            cmd.add("-Xmx256m");
            cmd.add("-jar");
            cmd.add(jar().toString());
            cmd.add("--properties");
            cmd.add(props.toString());
            process = new ProcessBuilder(cmd)
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile.toFile()))
                    .start();
            Process started = process;
            // A test JVM that dies without close() must not leave the server running.
            Runtime.getRuntime().addShutdownHook(new Thread(started::destroyForcibly));
            awaitPort(Duration.ofSeconds(60));
        } catch (IOException e) {
            throw new UncheckedIOException("starting S3Proxy failed; see " + logFile, e);
        }
    }

    /** Kills the process (like a crash: no graceful shutdown); objects stay on disk. */
    public synchronized void stop() {
        if (process == null) {
            return;
        }
        process.destroyForcibly();
        try {
            process.waitFor(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        process = null;
    }

    @Override
    public void close() {
        stop();
    }

    /**
     * The plain file behind an object (S3Proxy's filesystem store): its modification time is the object's
     * Last-Modified, which tests set to age an object.
     */
    public Path objectFile(String bucket, String key) {
        return dataDir.resolve(bucket).resolve(key);
    }

    public String endpoint() {
        return "http://127.0.0.1:" + port;
    }

    public int port() {
        return port;
    }

    /** Sets the {@code aws.accessKeyId} / {@code aws.secretAccessKey} / {@code aws.region} system properties. */
    public S3ProxyServer exportCredentials() {
        System.setProperty("aws.accessKeyId", ACCESS_KEY);
        System.setProperty("aws.secretAccessKey", SECRET_KEY);
        System.setProperty("aws.region", REGION);
        return this;
    }

    /** A path-style client with this server's credentials. */
    public S3Client client() {
        return S3Client.builder()
                .httpClientBuilder(UrlConnectionHttpClient.builder())
                .endpointOverride(URI.create(endpoint()))
                .forcePathStyle(true)
                .region(Region.of(REGION))
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(ACCESS_KEY, SECRET_KEY)))
                .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
                .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
                .build();
    }

    public void createBucket(String bucket) {
        try (S3Client s3 = client()) {
            s3.createBucket(b -> b.bucket(bucket));
        }
    }

    /** The keys below a prefix, for assertions. */
    public List<String> keys(String bucket, String prefix) {
        try (S3Client s3 = client()) {
            List<String> keys = new ArrayList<>();
            s3.listObjectsV2Paginator(b -> b.bucket(bucket).prefix(prefix)).contents().forEach(o -> keys.add(o.key()));
            return keys;
        }
    }

    private static Path jar() {
        String explicit = System.getProperty("s3proxy.jar");
        if (explicit != null) {
            return Paths.get(explicit);
        }
        Path copied = Paths.get(System.getProperty("tributary.test.build-dir", "target"), "s3proxy", "s3proxy.jar")
                .toAbsolutePath();
        if (Files.exists(copied)) {
            return copied;
        }
        Path m2 = Paths.get(System.getProperty("maven.repo.local", System.getProperty("user.home") + "/.m2/repository"),
                "org", "gaul", "s3proxy", "4.1.0", "s3proxy-4.1.0-jar-with-dependencies.jar");
        if (Files.exists(m2)) {
            return m2;
        }
        throw new IllegalStateException("S3Proxy jar not found: run the Maven build (it copies it to " + copied
                + ") or set -Ds3proxy.jar=...");
    }

    private void awaitPort(Duration timeout) throws IOException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IOException("S3Proxy exited with " + process.exitValue() + ": " + tail());
            }
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress("127.0.0.1", port), 200);
                return;
            } catch (IOException notYet) {
                try {
                    Thread.sleep(100);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IOException("interrupted", e);
                }
            }
        }
        throw new IOException("S3Proxy did not listen on " + port + " within " + timeout + ": " + tail());
    }

    private String tail() {
        try {
            String log = Files.readString(logFile);
            return log.length() > 2000 ? log.substring(log.length() - 2000) : log;
        } catch (IOException e) {
            return "(no log)";
        }
    }
}
