package io.tributary.testing;

import org.junit.jupiter.api.Tag;

import io.quarkus.test.common.QuarkusTestResource;

/** Registers {@link TributaryServices} for every {@code @QuarkusTest} of the module (restrictToAnnotatedClass=false). */
@Tag("quarkus")
@QuarkusTestResource(value = TributaryServices.class, restrictToAnnotatedClass = false)
public final class GlobalTestResources {
    private GlobalTestResources() {}
}
