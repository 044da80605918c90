package io.tributary.lambda;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

class DeploymentSecretsTest {

    private static final String DB = "arn:aws:secretsmanager:eu-west-1:123456789012:secret:tributary/database-AbCdEf";
    private static final String KEY = "arn:aws:secretsmanager:eu-west-1:123456789012:secret:tributary/secrets-key-GhIjKl";
    private static final String DATA_KEY = "q83vEjRWeJCrze8SNFZ4kKvN7xI0VniQq83vEjRWeJA=";

    @Test
    void turnsTheSecretsIntoDatasourceCredentialsAndTheDataKey() {
        Map<String, String> secrets = Map.of(
                DB, "{\"username\": \"tributary\", \"password\": \"s3cr3t-pw\"}",
                KEY, DATA_KEY + "\n");

        assertThat(DeploymentSecrets.properties(DB, KEY, secrets::get)).containsExactly(
                Map.entry("quarkus.datasource.username", "tributary"),
                Map.entry("quarkus.datasource.password", "s3cr3t-pw"),
                Map.entry("tributary.secrets-key", DATA_KEY));
    }

    @Test
    void readsOnlyTheSecretsThatAreConfigured() {
        assertThat(DeploymentSecrets.properties(null, KEY, Map.of(KEY, DATA_KEY)::get))
                .containsOnlyKeys("tributary.secrets-key");
        assertThat(DeploymentSecrets.properties(null, null, arn -> {
            throw new AssertionError("fetched " + arn);
        })).isEmpty();
    }

    @Test
    void rejectsMalformedSecretsWithoutRevealingThem() {
        assertThatThrownBy(() -> DeploymentSecrets.properties(DB, null, arn -> "password=s3cr3t-pw"))
                .hasMessageContaining(DB).hasMessageContaining("tributary.aws.database-secret-arn")
                .hasMessageContaining("not JSON").hasMessageNotContaining("s3cr3t");
        assertThatThrownBy(() -> DeploymentSecrets.properties(DB, null, arn -> "{\"username\": \"tributary\"}"))
                .hasMessageContaining("username and password");
        assertThatThrownBy(() -> DeploymentSecrets.properties(null, KEY, arn -> "c2hvcnQta2V5LXMzY3IzdA=="))
                .hasMessageContaining("base64 256-bit key").hasMessageNotContaining("c2hvcnQta2V5");
        assertThatThrownBy(() -> DeploymentSecrets.properties(null, KEY, arn -> "not base64 s3cr3t!"))
                .hasMessageContaining(KEY).hasMessageNotContaining("s3cr3t");
    }
}
