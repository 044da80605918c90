package io.tributary.testing;

import io.quarkus.test.common.QuarkusTestResource;

/** Registers {@link TributaryServices} for every {@code @QuarkusTest} of the module (restrictToAnnotatedClass=false). */
@QuarkusTestResource(value = TributaryServices.class, restrictToAnnotatedClass = false)
public final class GlobalTestResources {
    private GlobalTestResources() {}
}
