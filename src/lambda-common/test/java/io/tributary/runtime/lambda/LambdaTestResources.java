package io.tributary.runtime.lambda;

import io.quarkus.test.common.QuarkusTestResource;
import org.junit.jupiter.api.Tag;

/** Registers {@link LambdaTestServices} for every {@code @QuarkusTest} of a function build. */
@Tag("quarkus")
@QuarkusTestResource(value = LambdaTestServices.class, restrictToAnnotatedClass = false)
public final class LambdaTestResources {
    private LambdaTestResources() {}
}
