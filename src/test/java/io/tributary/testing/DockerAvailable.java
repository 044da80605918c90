package io.tributary.testing;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Disables a test class when there is no Docker daemon to talk to (no DOCKER_HOST, no /var/run/docker.sock). A
 * class-level condition is evaluated before Quarkus boots the application, so no container resource is started and the
 * class is reported as skipped. (Testcontainers' own probe cannot run here: its ServiceLoader lookups fail under the
 * JUnit condition's class loader.)
 */
public final class DockerAvailable implements ExecutionCondition {
    @Override
    public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
        String host = System.getenv("DOCKER_HOST");
        boolean available = (host != null && !host.isBlank()) || Files.exists(Path.of("/var/run/docker.sock"));
        return available ? ConditionEvaluationResult.enabled("a Docker daemon is configured")
                : ConditionEvaluationResult.disabled("Docker is not available: the containers variant is skipped");
    }
}
