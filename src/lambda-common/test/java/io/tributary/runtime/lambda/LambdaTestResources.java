package io.tributary.runtime.lambda;

import io.quarkus.test.common.QuarkusTestResource;

/** Registers {@link LambdaTestServices} for every {@code @QuarkusTest} of a function build. */
@QuarkusTestResource(value = LambdaTestServices.class, restrictToAnnotatedClass = false)
public final class LambdaTestResources {
    private LambdaTestResources() {}
}
