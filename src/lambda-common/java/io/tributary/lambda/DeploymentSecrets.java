package io.tributary.lambda;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;

/**
 * Turns the deployment's secrets, which Terraform passes to every function by ARN only, into configuration: the
 * registry database credentials and the data key (SPEC 6, {@code TRIBUTARY_SECRETS_KEY}). Error messages name the
 * setting and the secret's ARN, never its value.
 */
final class DeploymentSecrets {

    /** Environment variable TRIBUTARY_AWS_DATABASE_SECRET_ARN: JSON {"username": ..., "password": ...}. */
    static final String DATABASE_SECRET_ARN = "tributary.aws.database-secret-arn";
    /** Environment variable TRIBUTARY_AWS_SECRETS_KEY_SECRET_ARN: the base64 256-bit data key. */
    static final String SECRETS_KEY_SECRET_ARN = "tributary.aws.secrets-key-secret-arn";

    static final String SECRETS_KEY = "tributary.secrets-key";

    private static final ObjectMapper JSON = new ObjectMapper();

    private DeploymentSecrets() {}

    /** The configuration the secrets provide; {@code secretValue} fetches a secret's string by ARN. */
    static Map<String, String> properties(
            String databaseSecretArn, String secretsKeySecretArn, Function<String, String> secretValue) {
        Map<String, String> properties = new LinkedHashMap<>();
        if (databaseSecretArn != null) {
            JsonNode credentials = credentials(databaseSecretArn, secretValue.apply(databaseSecretArn));
            properties.put("quarkus.datasource.username", credentials.get("username").asText());
            properties.put("quarkus.datasource.password", credentials.get("password").asText());
        }
        if (secretsKeySecretArn != null) {
            properties.put(SECRETS_KEY, dataKey(secretsKeySecretArn, secretValue.apply(secretsKeySecretArn)));
        }
        return properties;
    }

    private static JsonNode credentials(String arn, String value) {
        String problem = "secret " + arn + " (" + DATABASE_SECRET_ARN + ") must be a JSON object with non-empty "
                + "string fields username and password";
        JsonNode credentials;
        try {
            credentials = value == null ? null : JSON.readTree(value);
        } catch (IOException e) {
            throw new IllegalStateException(problem + "; it is not JSON");
        }
        if (credentials == null || !credentials.isObject()
                || !nonEmptyText(credentials.get("username")) || !nonEmptyText(credentials.get("password"))) {
            throw new IllegalStateException(problem);
        }
        return credentials;
    }

    private static String dataKey(String arn, String value) {
        String key = value == null ? "" : value.strip();
        byte[] decoded;
        try {
            decoded = Base64.getDecoder().decode(key);
        } catch (IllegalArgumentException e) {
            decoded = new byte[0];
        }
        if (decoded.length != 32) {
            throw new IllegalStateException("secret " + arn + " (" + SECRETS_KEY_SECRET_ARN + ") must hold a base64 "
                    + "256-bit key, e.g. the output of: openssl rand -base64 32");
        }
        return key;
    }

    private static boolean nonEmptyText(JsonNode node) {
        return node != null && node.isTextual() && !node.asText().isEmpty();
    }
}
