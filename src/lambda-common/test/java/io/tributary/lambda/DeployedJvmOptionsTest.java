package io.tributary.lambda;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The integration tests and the cold-start bench start a JVM function with the options Terraform deploys it with. */
class DeployedJvmOptionsTest {

    @Test
    void theTestsStartTheFunctionWithTheDeployedJvmOptions() throws IOException {
        String module = Files.readString(Path.of("terraform/modules/function/main.tf"));
        assertThat(module).contains("JAVA_TOOL_OPTIONS = \"" + PackagedFunction.DEPLOYED_JVM_OPTIONS + "\"");
    }
}
