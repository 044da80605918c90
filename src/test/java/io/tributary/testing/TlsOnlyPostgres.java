package io.tributary.testing;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.util.Base64;
import java.util.concurrent.TimeUnit;

/**
 * An embedded PostgreSQL that takes TLS connections only, as RDS Proxy with {@code require_tls} or a database with
 * {@code rds.force_ssl} does, one per JVM, user {@code postgres} without a password. Its certificate is self-signed
 * for {@code 127.0.0.1} and {@code localhost}: {@link #certificate} is the CA a client that checks it must trust.
 */
public record TlsOnlyPostgres(int port, Path certificate) {
    private static TlsOnlyPostgres shared;

    public static synchronized TlsOnlyPostgres shared() {
        if (shared == null) {
            shared = start();
        }
        return shared;
    }

    private static TlsOnlyPostgres start() {
        try {
            Path root = Files.createTempDirectory("tributary-tls-db-");
            EmbeddedPostgres postgres = EmbeddedPostgres.builder().setDataDirectory(root.resolve("postgres"))
                    .setDataDirectoryCustomizer(dir -> tlsOnly(dir.toPath(), root))
                    .setServerConfig("ssl", "on")
                    .setServerConfig("ssl_cert_file", root.resolve("server.crt").toString())
                    .setServerConfig("ssl_key_file", root.resolve("server.key").toString())
                    .setServerConfig("hba_file", root.resolve("pg_hba.conf").toString())
                    // zonky's own readiness check connects too
                    .setConnectConfig("sslmode", "require")
                    .start();
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                try {
                    postgres.close();
                } catch (IOException e) {
                    // exiting anyway
                }
                TributaryServices.deleteQuietly(root);
            }, "tributary-tls-db-stop"));
            return new TlsOnlyPostgres(postgres.getPort(), root.resolve("server.crt"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A self-signed certificate and key (keytool, then PEM), and an hba file admitting TLS connections only. */
    private static void tlsOnly(Path dataDir, Path root) {
        try {
            Path store = root.resolve("server.p12");
            run(root, "keytool", "-genkeypair", "-alias", "pg", "-keyalg", "RSA", "-keysize", "2048",
                    "-dname", "CN=localhost", "-ext", "SAN=ip:127.0.0.1,dns:localhost", "-validity", "2",
                    "-storetype", "PKCS12", "-keystore", store.toString(), "-storepass", "changeit");
            run(root, "keytool", "-exportcert", "-rfc", "-alias", "pg", "-keystore", store.toString(),
                    "-storepass", "changeit", "-file", root.resolve("server.crt").toString());
            KeyStore ks = KeyStore.getInstance("PKCS12");
            try (InputStream in = Files.newInputStream(store)) {
                ks.load(in, "changeit".toCharArray());
            }
            PrivateKey key = (PrivateKey) ks.getKey("pg", "changeit".toCharArray());
            Path keyFile = root.resolve("server.key");
            Files.writeString(keyFile, "-----BEGIN PRIVATE KEY-----\n"
                    + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII))
                            .encodeToString(key.getEncoded())
                    + "\n-----END PRIVATE KEY-----\n");
            Files.setPosixFilePermissions(keyFile, PosixFilePermissions.fromString("rw-------"));
            Files.writeString(root.resolve("pg_hba.conf"), String.join("\n",
                    "local all all trust",
                    "hostssl all all 127.0.0.1/32 trust",
                    "hostssl all all ::1/128 trust",
                    "hostnossl all all 0.0.0.0/0 reject",
                    "hostnossl all all ::/0 reject", ""));
        } catch (Exception e) {
            throw new IllegalStateException("cannot set up TLS for the test database in " + dataDir, e);
        }
    }

    private static void run(Path dir, String... command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IllegalStateException(String.join(" ", command) + " failed: " + out);
        }
    }
}
