package io.tributary.server;

import io.tributary.ingest.KafkaTlsFailures;
import io.tributary.ingest.SecretRedaction;
import io.tributary.schema.InvalidSchemaException;
import io.tributary.schema.SchemaRegistryUnavailableException;
import java.util.Map;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.TimeoutException;

/** Turns a pipeline failure into a {@code state_message}: what failed and why, never a secret. */
final class FailureMessages {

    private FailureMessages() {}

    static String describe(Throwable failure, Map<String, String> kafkaProperties) {
        Throwable root = rootCause(failure);
        String prefix;
        if (KafkaTlsFailures.isTls(failure)) {
            // Before AuthenticationException, its superclass: "check the password" would send the user the wrong way.
            prefix = KafkaTlsFailures.describe(failure, kafkaProperties.getOrDefault("bootstrap.servers", "?"));
        } else if (isA(failure, AuthenticationException.class)) {
            prefix = "Kafka authentication failed (check the connection's user, password, mechanism and certificates)";
        } else if (isA(failure, AuthorizationException.class)) {
            prefix = "Kafka refused access (grant the connection's principal read access to the topics and group)";
        } else if (isA(failure, TimeoutException.class)) {
            prefix = "cannot reach Kafka at " + kafkaProperties.getOrDefault("bootstrap.servers", "?");
        } else if (isA(failure, SchemaRegistryUnavailableException.class)) {
            prefix = "the schema registry is unreachable, so the writer schemas of new messages are unknown; the batch"
                    + " is retried until it answers";
        } else if (isA(failure, InvalidSchemaException.class)) {
            prefix = "the stream's schema cannot be compiled";
        } else if (isA(failure, java.sql.SQLException.class)) {
            // The only JDBC on a pipeline's path is the write fence (StreamWriteLocks): say what waits and why.
            prefix = "the registry database cannot be reached for the stream's write lock, so commits wait until it "
                    + "answers (nothing is lost)";
        } else if (isA(failure, io.tributary.delta.NoSuchTableException.class)) {
            // Only a delete outside Tributary removes the log under a registered stream (its own delete stops the
            // pipeline first): say what was lost and the two ways on, since retrying alone never ends.
            prefix = "the ingestion table's Delta log is gone (deleted outside Tributary); nothing is written until "
                    + "it is restored, or delete the stream and create it again to ingest what Kafka still holds into "
                    + "a new table";
        } else if (failure.getClass().getName().startsWith("org.apache.kafka")) {
            prefix = "Kafka error";
        } else {
            prefix = "writing the ingestion table failed";
        }
        String detail = root.getMessage() == null ? root.getClass().getSimpleName() : root.getMessage();
        return SecretRedaction.redact(prefix + ": " + detail, kafkaProperties);
    }

    /**
     * Whether the failure is that Kafka did not answer in time (what {@link #describe} calls "cannot reach Kafka"):
     * for a stream that was flowing, its consumer stalled rather than the stream failing (see {@link StallWatch}).
     */
    static boolean unreachable(Throwable failure) {
        return !KafkaTlsFailures.isTls(failure) && !isA(failure, AuthenticationException.class)
                && !isA(failure, AuthorizationException.class) && isA(failure, TimeoutException.class);
    }

    /** Whether the failure is the registry database not answering (the write fence's JDBC, the only JDBC here). */
    static boolean registryDatabase(Throwable failure) {
        return isA(failure, java.sql.SQLException.class);
    }

    private static boolean isA(Throwable t, Class<? extends Throwable> type) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (type.isInstance(c)) {
                return true;
            }
            if (c.getCause() == c) {
                break;
            }
        }
        return false;
    }

    private static Throwable rootCause(Throwable t) {
        Throwable c = t;
        while (c.getCause() != null && c.getCause() != c) {
            c = c.getCause();
        }
        return c;
    }
}
