package io.tributary.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.TimeoutException;
import org.junit.jupiter.api.Test;

class FailureMessagesTest {

    private final Map<String, String> props = Map.of(
            "bootstrap.servers", "b1:9092",
            "sasl.jaas.config", "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"u\" "
                    + "password=\"hunter22\";",
            "ssl.keystore.password", "ks-secret");

    @Test
    void namesTheCauseAndNeverASecret() {
        String auth = FailureMessages.describe(new KafkaException("poll failed",
                new SaslAuthenticationException("bad credentials for password hunter22")), props);
        assertThat(auth).startsWith("Kafka authentication failed").doesNotContain("hunter22").contains("***");

        String unreachable = FailureMessages.describe(new TimeoutException("Timeout expired"), props);
        assertThat(unreachable).startsWith("cannot reach Kafka at b1:9092");

        String storage = FailureMessages.describe(new RuntimeException("PUT failed; keystore ks-secret",
                new java.io.IOException("connection refused")), props);
        assertThat(storage).startsWith("writing the ingestion table failed: connection refused")
                .doesNotContain("ks-secret");
    }

    @Test
    void aTableDeletedOutsideTributarySaysHowToGoOn() {
        String gone = FailureMessages.describe(new java.io.UncheckedIOException(new java.io.IOException("commit",
                new io.tributary.delta.NoSuchTableException("file:/w/main/s/t_ingestion"))), props);
        assertThat(gone).startsWith("the ingestion table's Delta log is gone").contains("delete the stream and create "
                + "it again").endsWith(": no Delta table at file:/w/main/s/t_ingestion");
    }

    @Test
    void aLockThatCannotBeTakenNamesTheRegistryDatabase() {
        String fence = FailureMessages.describe(new IllegalStateException("cannot lock the table at /w/t against its "
                + "deletion", new java.sql.SQLException("Read timed out", "08006")), props);
        assertThat(fence).startsWith("the registry database cannot be reached for the stream's write lock")
                .endsWith(": Read timed out");
    }

    @Test
    void anUnreachableRegistryIsSaidSoWhetherAtCompileOrWhileDecoding() {
        String decoding = FailureMessages.describe(new io.tributary.schema.SchemaRegistryUnavailableException(
                "cannot reach the schema registry at http://r:8081 for schema id 7"), props);
        assertThat(decoding).startsWith("the schema registry is unreachable").contains("schema id 7");

        String compiling = FailureMessages.describe(catchRegistryDown(), props);
        assertThat(compiling).startsWith("the schema registry is unreachable")
                .doesNotContain("when the stream is created");
    }

    /** Compiling a registry side against a port nothing listens on. */
    private static RuntimeException catchRegistryDown() {
        int port;
        try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
            port = s.getLocalPort();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        try {
            io.tributary.schema.SideSchema.compile(new io.tributary.schema.SchemaSource.Registry("s",
                    io.tributary.schema.RegistryFormat.FORMAT_AVRO, new io.tributary.schema.RegistryAccess(
                            "http://127.0.0.1:" + port, null, null)), "payload_schema_locator");
        } catch (RuntimeException e) {
            return e;
        }
        throw new AssertionError("compiling against a closed port succeeded");
    }
}
