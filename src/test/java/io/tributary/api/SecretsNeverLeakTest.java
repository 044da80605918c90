package io.tributary.api;

import org.junit.jupiter.api.Tag;

import static io.tributary.testing.Api.ALICE;
import static io.tributary.testing.Api.as;
import static io.tributary.testing.Api.unique;
import static io.tributary.testing.StreamRequests.json;
import static io.tributary.testing.StreamRequests.valid;
import static io.tributary.testing.StreamRequests.with;
import static org.assertj.core.api.Assertions.assertThat;

import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.logging.SimpleFormatter;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** No response body and no log record (message, parameters or exception) ever contains a secret value. */
@Tag("quarkus")
@QuarkusTest
class SecretsNeverLeakTest {
    static final String SECRET = "canary-secret-value-4711";
    static final String PASSWORD = "canary-connection-password-0815";
    static final String MTLS_PASSWORD = "canary-keystore-password-2342";

    private final List<String> logged = new ArrayList<>();
    private final List<String> bodies = new ArrayList<>();
    private final Handler capture = new Handler() {
        private final SimpleFormatter formatter = new SimpleFormatter();

        @Override
        public void publish(LogRecord record) {
            StringBuilder text = new StringBuilder(formatter.formatMessage(record));
            if (record.getParameters() != null) {
                for (Object p : record.getParameters()) {
                    text.append(' ').append(p);
                }
            }
            if (record.getThrown() != null) {
                StringWriter trace = new StringWriter();
                record.getThrown().printStackTrace(new PrintWriter(trace));
                text.append(trace);
            }
            synchronized (logged) {
                logged.add(text.toString());
            }
        }

        @Override
        public void flush() {}

        @Override
        public void close() {}
    };

    @BeforeEach
    void install() {
        capture.setLevel(Level.ALL);
        Logger.getLogger("").addHandler(capture);
    }

    @AfterEach
    void remove() {
        Logger.getLogger("").removeHandler(capture);
    }

    private Response keep(Response r) {
        bodies.add(r.asString());
        return r;
    }

    @Test
    void secretsAndPasswordsStayOutOfResponsesAndLogs() {
        String scope = unique("leak");
        keep(as(ALICE).body("{\"scope\": \"" + scope + "\"}").post("/api/2.0/secrets/scopes/create"));
        keep(as(ALICE).body("{\"scope\": \"" + scope + "\", \"key\": \"k\", \"string_value\": \"" + SECRET + "\"}")
                .post("/api/2.0/secrets/put"));
        keep(as(ALICE).body("{\"scope\": \"" + scope + "\", \"key\": \"ks\", \"string_value\": \"" + MTLS_PASSWORD
                + "\"}").post("/api/2.0/secrets/put"));
        keep(as(ALICE).queryParam("scope", scope).get("/api/2.0/secrets/list"));

        String connection = unique("leakconn");
        keep(as(ALICE).body("{\"name\": \"" + connection + "\", \"connection_type\": \"KAFKA\", \"options\": "
                + "{\"bootstrap_servers\": \"127.0.0.1:1\", \"sasl_mechanism\": \"SCRAM-SHA-256\", \"user\": \"u\", "
                + "\"password\": \"" + PASSWORD + "\", \"schema_registry_url\": \"http://127.0.0.1:1\", "
                + "\"schema_registry_api_secret\": {\"scope\": \"" + scope + "\", \"key\": \"k\"}}}")
                .post("/api/2.0/connections"));
        keep(as(ALICE).get("/api/2.0/connections/" + connection));
        keep(as(ALICE).get("/api/2.0/connections"));

        // Kafka unreachable with SASL credentials: the failure path must not echo them.
        keep(as(ALICE).body(valid("main." + unique("leak") + ".s", connection, "t").toString())
                .post("/api/2.0/feature-engineering/streams"));
        // mTLS with a keystore that does not exist: the Kafka client fails on its configuration.
        keep(as(ALICE).body(with(valid("main." + unique("leak") + ".m", connection, "t"), "connection_config",
                json("{\"direct_mtls_config\": {\"bootstrap_servers\": \"127.0.0.1:1\", \"mtls_config\": {"
                        + "\"keystore_location\": \"/nonexistent/keystore.jks\", \"keystore_password_ref\": "
                        + "{\"scope\": \"" + scope + "\", \"key\": \"ks\"}, \"key_password_ref\": {\"scope\": \""
                        + scope + "\", \"key\": \"ks\"}}}}")).toString())
                .post("/api/2.0/feature-engineering/streams"));
        // A request body that is not JSON but carries a secret.
        keep(as(ALICE).body("{\"scope\": \"" + scope + "\", \"key\": \"k\", \"string_value\": \"" + SECRET)
                .post("/api/2.0/secrets/put"));
        keep(as(ALICE).body("{\"scope\": \"" + scope + "\", \"key\": \"k\", \"string_value\": [\"" + SECRET + "\"]}")
                .post("/api/2.0/secrets/put"));

        assertThat(bodies).hasSizeGreaterThan(8);
        assertThat(bodies.get(7)).contains("connection_config");
        for (String body : bodies) {
            assertThat(body).doesNotContain(SECRET).doesNotContain(PASSWORD).doesNotContain(MTLS_PASSWORD);
        }
        synchronized (logged) {
            for (String line : logged) {
                assertThat(line).doesNotContain(SECRET).doesNotContain(PASSWORD).doesNotContain(MTLS_PASSWORD);
            }
        }
    }

    @org.eclipse.microprofile.config.inject.ConfigProperty(name = "quarkus.datasource.jdbc.url")
    String jdbcUrl;

    /**
     * Issue 12 item 8: encrypted at rest. Every row of every registry table, read straight from PostgreSQL as text
     * (bytea as hex), holds neither the secret values nor the connection password, in plain text or hex; nor does
     * {@code /q/metrics}.
     */
    @Test
    void theDatabaseAndTheMetricsHoldNoPlaintextSecret() throws Exception {
        String scope = unique("rest");
        String secret = "at-rest-canary-" + unique("s");
        String password = "at-rest-password-" + unique("p");
        as(ALICE).body("{\"scope\": \"" + scope + "\"}").post("/api/2.0/secrets/scopes/create").then()
                .statusCode(200);
        as(ALICE).body("{\"scope\": \"" + scope + "\", \"key\": \"k\", \"string_value\": \"" + secret + "\"}")
                .post("/api/2.0/secrets/put").then().statusCode(200);
        String connection = unique("restconn");
        as(ALICE).body("{\"name\": \"" + connection + "\", \"connection_type\": \"KAFKA\", \"options\": "
                + "{\"bootstrap_servers\": \"127.0.0.1:1\", \"sasl_mechanism\": \"PLAIN\", \"user\": \"u\", "
                + "\"password\": \"" + password + "\", \"schema_registry_url\": \"http://127.0.0.1:1\", "
                + "\"schema_registry_api_secret\": {\"scope\": \"" + scope + "\", \"key\": \"k\"}}}")
                .post("/api/2.0/connections").then().statusCode(200);

        List<String> canaries = new ArrayList<>();
        for (String value : List.of(secret, password)) {
            canaries.add(value);
            canaries.add(java.util.HexFormat.of().formatHex(value.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
        }
        int rows = 0;
        try (java.sql.Connection c = java.sql.DriverManager.getConnection(jdbcUrl, "postgres", "postgres");
                java.sql.Statement s = c.createStatement()) {
            List<String> tables = new ArrayList<>();
            try (java.sql.ResultSet rs = s.executeQuery("SELECT table_name FROM information_schema.tables "
                    + "WHERE table_schema = 'public' AND table_type = 'BASE TABLE'")) {
                while (rs.next()) {
                    tables.add(rs.getString(1));
                }
            }
            assertThat(tables).contains("secrets", "connections");
            for (String table : tables) {
                try (java.sql.ResultSet rs = s.executeQuery("SELECT t::text FROM \"" + table + "\" t")) {
                    while (rs.next()) {
                        rows++;
                        String row = rs.getString(1);
                        for (String canary : canaries) {
                            assertThat(row).as("a row of %s", table).doesNotContainIgnoringCase(canary);
                        }
                    }
                }
            }
        }
        assertThat(rows).isGreaterThan(2);
        String metrics = io.restassured.RestAssured.given().get("/q/metrics").then().extract().asString();
        for (String canary : canaries) {
            assertThat(metrics).doesNotContain(canary);
        }
        synchronized (logged) {
            for (String line : logged) {
                assertThat(line).doesNotContain(secret).doesNotContain(password);
            }
        }
    }
}
