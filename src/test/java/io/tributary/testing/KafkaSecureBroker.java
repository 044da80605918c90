package io.tributary.testing;

import static org.awaitility.Awaitility.await;

import io.tributary.server.local.EmbeddedKafka;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;

/**
 * An {@link EmbeddedKafka} with one listener per security setup a connection can have: PLAINTEXT, SASL_PLAINTEXT
 * (PLAIN, SCRAM-SHA-256, SCRAM-SHA-512), SASL_SSL and SSL with client certificates (mTLS). Certificates come from
 * the JDK's keytool, signed by a throwaway CA.
 */
public final class KafkaSecureBroker implements AutoCloseable {

    public static final String USER = "alice";
    public static final String PASSWORD = "alice-pw-1";

    private final EmbeddedKafka kafka;
    private final int saslPort;
    private final int saslSslPort;
    private final int sslPort;
    private final Path dir;

    private KafkaSecureBroker(EmbeddedKafka kafka, int saslPort, int saslSslPort, int sslPort, Path dir) {
        this.kafka = kafka;
        this.saslPort = saslPort;
        this.saslSslPort = saslSslPort;
        this.sslPort = sslPort;
        this.dir = dir;
    }

    public static KafkaSecureBroker start(Path dir) throws Exception {
        Certificates.create(dir);
        int[] ports = freePorts(5);
        int plain = ports[0];
        int sasl = ports[1];
        int saslSsl = ports[2];
        int ssl = ports[3];
        Map<String, String> c = new LinkedHashMap<>();
        String controller = "CONTROLLER://127.0.0.1:" + ports[4];
        c.put("listeners", "PLAINTEXT://127.0.0.1:" + plain + ",SASL_PLAINTEXT://127.0.0.1:" + sasl
                + ",SASL_SSL://127.0.0.1:" + saslSsl + ",SSL://127.0.0.1:" + ssl + "," + controller);
        c.put("controller.quorum.voters", "1@" + controller.substring("CONTROLLER://".length()));
        c.put("advertised.listeners", "PLAINTEXT://127.0.0.1:" + plain + ",SASL_PLAINTEXT://127.0.0.1:" + sasl
                + ",SASL_SSL://127.0.0.1:" + saslSsl + ",SSL://127.0.0.1:" + ssl);
        c.put("listener.security.protocol.map",
                "PLAINTEXT:PLAINTEXT,SASL_PLAINTEXT:SASL_PLAINTEXT,SASL_SSL:SASL_SSL,SSL:SSL,CONTROLLER:PLAINTEXT");
        c.put("sasl.enabled.mechanisms", "PLAIN,SCRAM-SHA-256,SCRAM-SHA-512");
        for (String listener : List.of("sasl_plaintext", "sasl_ssl")) {
            String prefix = "listener.name." + listener + ".";
            c.put(prefix + "plain.sasl.jaas.config", "org.apache.kafka.common.security.plain.PlainLoginModule "
                    + "required user_" + USER + "=\"" + PASSWORD + "\";");
            c.put(prefix + "scram-sha-256.sasl.jaas.config",
                    "org.apache.kafka.common.security.scram.ScramLoginModule required;");
            c.put(prefix + "scram-sha-512.sasl.jaas.config",
                    "org.apache.kafka.common.security.scram.ScramLoginModule required;");
        }
        c.put("ssl.keystore.location", dir.resolve("broker.p12").toString());
        c.put("ssl.keystore.password", Certificates.STORE_PASSWORD);
        c.put("ssl.keystore.type", "PKCS12");
        c.put("ssl.truststore.location", dir.resolve("truststore.p12").toString());
        c.put("ssl.truststore.password", Certificates.STORE_PASSWORD);
        c.put("ssl.truststore.type", "PKCS12");
        c.put("listener.name.ssl.ssl.client.auth", "required");
        EmbeddedKafka kafka = EmbeddedKafka.start(dir.resolve("kafka"), plain, c);
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", kafka.bootstrapServers()))) {
            // One alteration per user and request: each mechanism goes separately.
            for (ScramMechanism m : List.of(ScramMechanism.SCRAM_SHA_256, ScramMechanism.SCRAM_SHA_512)) {
                admin.alterUserScramCredentials(List.of(
                        new UserScramCredentialUpsertion(USER, new ScramCredentialInfo(m, 4096), PASSWORD)))
                        .all().get();
            }
            // SCRAM credentials propagate through the metadata log: wait until the broker's own view holds both.
            await("SCRAM credentials applied").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50))
                    .ignoreExceptions()
                    .until(() -> admin.describeUserScramCredentials(List.of(USER)).all().get().get(USER)
                            .credentialInfos().size() == 2);
        }
        return new KafkaSecureBroker(kafka, sasl, saslSsl, ssl, dir);
    }

    /** PLAINTEXT, for the test's own admin and producer. */
    public String bootstrapServers() {
        return kafka.bootstrapServers();
    }

    /** Client properties of a connection, as the registry hands them to a pipeline. */
    public Map<String, String> clientProperties(String setup) {
        Map<String, String> p = new HashMap<>();
        switch (setup) {
            case "PLAINTEXT" -> p.put("bootstrap.servers", kafka.bootstrapServers());
            case "PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512" -> {
                p.put("bootstrap.servers", "127.0.0.1:" + saslPort);
                p.put("security.protocol", "SASL_PLAINTEXT");
                sasl(p, setup, PASSWORD);
            }
            case "SASL_SSL SCRAM-SHA-512" -> {
                p.put("bootstrap.servers", "127.0.0.1:" + saslSslPort);
                p.put("security.protocol", "SASL_SSL");
                sasl(p, "SCRAM-SHA-512", PASSWORD);
                trust(p);
            }
            case "MTLS" -> {
                p.put("bootstrap.servers", "127.0.0.1:" + sslPort);
                p.put("security.protocol", "SSL");
                trust(p);
                p.put("ssl.keystore.location", dir.resolve("client.p12").toString());
                p.put("ssl.keystore.password", Certificates.STORE_PASSWORD);
                p.put("ssl.key.password", Certificates.STORE_PASSWORD);
                p.put("ssl.keystore.type", "PKCS12");
            }
            default -> throw new IllegalArgumentException(setup);
        }
        return p;
    }

    /**
     * The properties of {@code setup} (SASL_SSL or MTLS) with a truststore that holds only another CA, one that did not
     * sign the broker's certificate: what a connection configured with the wrong CA hands the client.
     */
    public Map<String, String> otherCa(String setup) {
        Map<String, String> p = clientProperties(setup);
        p.put("ssl.truststore.location", otherCaTruststore().toString());
        return p;
    }

    /** A PKCS12 truststore (password {@link #storePassword()}) holding a CA that signed nothing of this broker. */
    public synchronized Path otherCaTruststore() {
        Path other = dir.resolve("other-ca");
        try {
            if (!java.nio.file.Files.exists(other.resolve("truststore.p12"))) {
                Certificates.ca(other, "CN=another-ca");
            }
        } catch (Exception e) {
            throw new IllegalStateException("making another CA failed", e);
        }
        return other.resolve("truststore.p12");
    }

    /** The broker's CA, as a PKCS12 truststore (password {@link #storePassword()}). */
    public Path truststore() {
        return dir.resolve("truststore.p12");
    }

    /** The client's keystore for the mTLS listener (its store and key password: {@link #storePassword()}). */
    public Path clientKeystore() {
        return dir.resolve("client.p12");
    }

    public String storePassword() {
        return Certificates.STORE_PASSWORD;
    }

    /** The SSL listener, which asks for a client certificate. */
    public String sslBootstrapServers() {
        return "127.0.0.1:" + sslPort;
    }

    /** The SASL_SSL listener (PLAIN and SCRAM users {@link #USER}). */
    public String saslSslBootstrapServers() {
        return "127.0.0.1:" + saslSslPort;
    }

    /** SASL properties with a wrong password, to see authentication fail. */
    public Map<String, String> wrongPassword(String mechanism) {
        Map<String, String> p = clientProperties(mechanism);
        sasl(p, mechanism, "not-the-password");
        return p;
    }

    private static void sasl(Map<String, String> p, String mechanism, String password) {
        p.put("sasl.mechanism", mechanism);
        String module = mechanism.equals("PLAIN") ? "org.apache.kafka.common.security.plain.PlainLoginModule"
                : "org.apache.kafka.common.security.scram.ScramLoginModule";
        p.put("sasl.jaas.config", module + " required username=\"" + USER + "\" password=\"" + password + "\";");
    }

    private void trust(Map<String, String> p) {
        p.put("ssl.truststore.location", dir.resolve("truststore.p12").toString());
        p.put("ssl.truststore.password", Certificates.STORE_PASSWORD);
        p.put("ssl.truststore.type", "PKCS12");
        p.put("ssl.endpoint.identification.algorithm", "https");
    }

    @Override
    public void close() {
        kafka.close();
    }

    /** Distinct free ports: every socket stays open until all are chosen, so no port is handed out twice. */
    private static int[] freePorts(int n) {
        ServerSocket[] sockets = new ServerSocket[n];
        try {
            int[] ports = new int[n];
            for (int i = 0; i < n; i++) {
                sockets[i] = new ServerSocket(0);
                ports[i] = sockets[i].getLocalPort();
            }
            return ports;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            for (ServerSocket s : sockets) {
                if (s != null) {
                    try {
                        s.close();
                    } catch (IOException ignored) {
                        // closing a listening socket nobody connected to
                    }
                }
            }
        }
    }

    /** A CA, a broker certificate for 127.0.0.1/localhost and a client certificate, made with keytool. */
    static final class Certificates {
        static final String STORE_PASSWORD = "store-pw-1";

        static void create(Path dir) throws Exception {
            ca(dir, "CN=test-ca");
            signed(dir, "broker", "CN=localhost", "SAN=ip:127.0.0.1,dns:localhost");
            signed(dir, "client", "CN=tributary-client", null);
        }

        /** A CA key in {@code ca.p12}, its certificate in {@code ca.pem} and alone in {@code truststore.p12}. */
        static void ca(Path dir, String dname) throws Exception {
            java.nio.file.Files.createDirectories(dir);
            keytool(dir, "-genkeypair", "-alias", "ca", "-keyalg", "RSA", "-keysize", "2048", "-dname", dname,
                    "-ext", "bc:c", "-validity", "2", "-keystore", "ca.p12", "-storetype", "PKCS12",
                    "-storepass", STORE_PASSWORD);
            keytool(dir, "-exportcert", "-rfc", "-alias", "ca", "-keystore", "ca.p12", "-storepass", STORE_PASSWORD,
                    "-file", "ca.pem");
            keytool(dir, "-importcert", "-noprompt", "-alias", "ca", "-file", "ca.pem", "-keystore", "truststore.p12",
                    "-storetype", "PKCS12", "-storepass", STORE_PASSWORD);
        }

        private static void signed(Path dir, String name, String dname, String san) throws Exception {
            keytool(dir, "-genkeypair", "-alias", name, "-keyalg", "RSA", "-keysize", "2048", "-dname", dname,
                    "-validity", "2", "-keystore", name + ".p12", "-storetype", "PKCS12", "-storepass", STORE_PASSWORD);
            keytool(dir, "-certreq", "-alias", name, "-keystore", name + ".p12", "-storepass", STORE_PASSWORD,
                    "-file", name + ".csr");
            List<String> gencert = new ArrayList<>(List.of("-gencert", "-alias", "ca", "-keystore", "ca.p12",
                    "-storepass", STORE_PASSWORD, "-infile", name + ".csr", "-outfile", name + ".pem", "-rfc",
                    "-validity", "2"));
            if (san != null) {
                gencert.addAll(List.of("-ext", san));
            }
            keytool(dir, gencert.toArray(String[]::new));
            keytool(dir, "-importcert", "-noprompt", "-alias", "ca", "-file", "ca.pem", "-keystore", name + ".p12",
                    "-storepass", STORE_PASSWORD);
            keytool(dir, "-importcert", "-alias", name, "-file", name + ".pem", "-keystore", name + ".p12",
                    "-storepass", STORE_PASSWORD);
        }

        private static void keytool(Path dir, String... args) throws Exception {
            List<String> cmd = new ArrayList<>();
            cmd.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
            cmd.addAll(List.of(args));
            Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (p.waitFor() != 0) {
                throw new IllegalStateException("keytool " + args[0] + " failed: " + out);
            }
        }
    }
}
