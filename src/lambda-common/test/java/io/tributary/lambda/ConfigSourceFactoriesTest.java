package io.tributary.lambda;

import static org.assertj.core.api.Assertions.assertThat;

import io.smallrye.config.ConfigSourceFactory;
import java.util.ServiceLoader;
import org.junit.jupiter.api.Test;

/**
 * The function build's class path (its classes folder, into which src/main/resources and src/lambda-common/resources
 * are both copied) registers the factory that reads the deployment's secrets. A services file of the same name in
 * src/main/resources used to replace this build's: the functions then started on AWS without database credentials
 * or data key, while every test, which passes those as plain settings, passed.
 */
class ConfigSourceFactoriesTest {

    @Test
    void theFunctionsReadTheirSecretsFromSecretsManager() {
        assertThat(ServiceLoader.load(ConfigSourceFactory.class).stream().map(ServiceLoader.Provider::type))
                .contains(SecretsManagerConfigSourceFactory.class);
    }
}
