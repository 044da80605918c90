package io.tributary.lambda;

import io.smallrye.config.ConfigSourceContext;
import io.smallrye.config.ConfigSourceFactory;
import io.smallrye.config.ConfigValue;
import io.smallrye.config.PropertiesConfigSource;
import java.util.List;
import java.util.Map;
import org.eclipse.microprofile.config.spi.ConfigSource;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.services.secretsmanager.SecretsManagerClient;

/**
 * Reads the deployment's secrets from Secrets Manager once, when a function starts, so that the datasource and the
 * secret encryption see them as ordinary configuration. Does nothing outside AWS (no secret ARNs configured).
 * Registered in META-INF/services; region and credentials come from the Lambda environment.
 */
public final class SecretsManagerConfigSourceFactory implements ConfigSourceFactory {

    // Above application.properties (250), below environment variables (300), so an operator can still override.
    static final int ORDINAL = 270;

    @Override
    public Iterable<ConfigSource> getConfigSources(ConfigSourceContext context) {
        String databaseSecretArn = value(context, DeploymentSecrets.DATABASE_SECRET_ARN);
        String secretsKeySecretArn = value(context, DeploymentSecrets.SECRETS_KEY_SECRET_ARN);
        if (databaseSecretArn == null && secretsKeySecretArn == null) {
            return List.of();
        }
        try (SecretsManagerClient client = SecretsManagerClient.builder()
                .httpClient(UrlConnectionHttpClient.create())
                .build()) {
            Map<String, String> properties = DeploymentSecrets.properties(databaseSecretArn, secretsKeySecretArn,
                    arn -> client.getSecretValue(r -> r.secretId(arn)).secretString());
            return List.of(new PropertiesConfigSource(properties, "aws-secrets-manager", ORDINAL));
        }
    }

    private static String value(ConfigSourceContext context, String name) {
        ConfigValue value = context.getValue(name);
        return value == null || value.getValue() == null || value.getValue().isBlank() ? null : value.getValue();
    }
}
