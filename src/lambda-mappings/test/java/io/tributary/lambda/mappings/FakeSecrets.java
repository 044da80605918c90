package io.tributary.lambda.mappings;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import software.amazon.awssdk.services.secretsmanager.SecretsManagerClient;
import software.amazon.awssdk.services.secretsmanager.model.CreateSecretRequest;
import software.amazon.awssdk.services.secretsmanager.model.CreateSecretResponse;
import software.amazon.awssdk.services.secretsmanager.model.DeleteSecretRequest;
import software.amazon.awssdk.services.secretsmanager.model.DeleteSecretResponse;
import software.amazon.awssdk.services.secretsmanager.model.DescribeSecretRequest;
import software.amazon.awssdk.services.secretsmanager.model.DescribeSecretResponse;
import software.amazon.awssdk.services.secretsmanager.model.ResourceNotFoundException;

/**
 * An in-memory stand-in for Secrets Manager: the Kafka credentials secrets IngestMappings creates, describes and
 * deletes. Thread-safe: the function under test calls it on its own threads.
 */
public final class FakeSecrets implements SecretsManagerClient {
    public final List<CreateSecretRequest> created = new CopyOnWriteArrayList<>();
    public final List<String> deleted = new CopyOnWriteArrayList<>();

    @Override
    public CreateSecretResponse createSecret(CreateSecretRequest request) {
        created.add(request);
        return CreateSecretResponse.builder().name(request.name()).arn(arn(request.name())).build();
    }

    @Override
    public DescribeSecretResponse describeSecret(DescribeSecretRequest request) {
        if (created.stream().noneMatch(c -> c.name().equals(request.secretId()))) {
            throw ResourceNotFoundException.builder().message("no secret " + request.secretId()).build();
        }
        return DescribeSecretResponse.builder().name(request.secretId()).arn(arn(request.secretId())).build();
    }

    @Override
    public DeleteSecretResponse deleteSecret(DeleteSecretRequest request) {
        boolean existed = created.removeIf(c -> c.name().equals(request.secretId()));
        if (!existed) {
            throw ResourceNotFoundException.builder().message("no secret").build();
        }
        deleted.add(request.secretId());
        return DeleteSecretResponse.builder().build();
    }

    public static String arn(String name) {
        return "arn:aws:secretsmanager:eu-west-1:123456789012:secret:" + name + "-AbC";
    }

    @Override
    public String serviceName() {
        return "secretsmanager";
    }

    @Override
    public void close() {}
}
