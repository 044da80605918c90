package io.tributary.testing;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import io.quarkus.test.junit.QuarkusTestProfile;
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
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A test profile whose registry database accepts TLS connections only, as Terraform's RDS Proxy does
 * ({@code require_tls = true}), and whose settings are a deployment's: the reactive URL without parameters and
 * {@code quarkus.datasource.reactive.postgresql.ssl-mode=require} beside it (terraform/functions.tf). The server
 * certificate is self-signed, so the reactive client is told to trust it ({@code trust-all}); pgjdbc's
 * {@code sslmode=require} does not check it.
 */
public class RegistryOverTls implements QuarkusTestProfile {

    @Override
    public List<TestResourceEntry> testResources() {
        return List.of(new TestResourceEntry(Resource.class));
    }

    public static class Resource implements QuarkusTestResourceLifecycleManager {
        private static Map<String, String> config;

        @Override
        public synchronized Map<String, String> start() {
            if (config == null) {
                config = startDatabase();
            }
            return config;
        }

        @Override
        public void stop() {
            // one database for the JVM, like TributaryServices'
        }

        private static Map<String, String> startDatabase() {
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
                return Map.of(
                        "quarkus.datasource.reactive.url", "postgresql://127.0.0.1:" + postgres.getPort() + "/postgres",
                        "quarkus.datasource.reactive.postgresql.ssl-mode", "require",
                        "quarkus.datasource.reactive.trust-all", "true",
                        "quarkus.datasource.username", "postgres",
                        "quarkus.datasource.password", "postgres");
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
}
