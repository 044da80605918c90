package io.tributary.lambda;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Secrets Manager's {@code GetSecretValue} (JSON 1.1) for the secrets a deployment hands every function by ARN only
 * (terraform/functions.tf: the registry database's credentials, the data key), so a packaged function under test
 * starts from what Terraform gives it, not from plain settings. A control-plane API: faked, since it cannot run here.
 * Served by whichever fake holds the test's {@code AWS_ENDPOINT_URL_SECRETS_MANAGER} (the SDK has one endpoint per
 * service): {@link PackagedFunction}'s own server, or another fake that passes Secrets Manager calls to
 * {@link #handle}.
 */
public final class DeploymentSecretsEndpoint {
    private static final ObjectMapper JSON = new ObjectMapper();
    static final String DATABASE_ARN = "arn:aws:secretsmanager:eu-west-1:123456789012:secret:tributary/database-it";
    static final String SECRETS_KEY_ARN = "arn:aws:secretsmanager:eu-west-1:123456789012:secret:tributary/key-it";

    private final Map<String, String> secrets = new ConcurrentHashMap<>();
    /** The ARNs the function read, in order. */
    public final List<String> read = new CopyOnWriteArrayList<>();

    /**
     * Moves the registry database's credentials and the data key out of {@code settings} into secrets, and puts the
     * two ARN settings Terraform sets in their place.
     */
    Map<String, String> deploy(Map<String, String> settings) {
        Map<String, String> out = new LinkedHashMap<>(settings);
        String user = out.remove("quarkus.datasource.username");
        String password = out.remove("quarkus.datasource.password");
        String key = out.remove("tributary.secrets-key");
        secrets.put(DATABASE_ARN, JSON.createObjectNode().put("username", user).put("password", password).toString());
        secrets.put(SECRETS_KEY_ARN, key);
        out.put("tributary.aws.database-secret-arn", DATABASE_ARN);
        out.put("tributary.aws.secrets-key-secret-arn", SECRETS_KEY_ARN);
        return out;
    }

    /**
     * Answers a Secrets Manager call ({@code X-Amz-Target: secretsmanager.*}) if it reads one of these secrets.
     *
     * @return false when the call is not for these secrets (the caller answers it)
     */
    public boolean handle(HttpExchange exchange, String target, byte[] body) throws IOException {
        if (!"secretsmanager.GetSecretValue".equals(target)) {
            return false;
        }
        String arn = JSON.readTree(body).path("SecretId").asText();
        String value = secrets.get(arn);
        if (value == null) {
            return false;
        }
        read.add(arn);
        byte[] json = JSON.createObjectNode().put("ARN", arn).put("Name", arn.substring(arn.lastIndexOf(':') + 1))
                .put("SecretString", value).put("VersionId", "v1").toString().getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().add("Content-Type", "application/x-amz-json-1.1");
        exchange.sendResponseHeaders(200, json.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(json);
        }
        return true;
    }
}
