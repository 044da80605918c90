package io.tributary.lambda;

import io.quarkus.test.common.QuarkusTestResource;
import io.tributary.testing.TributaryServices;
import org.junit.jupiter.api.Tag;

/**
 * Registers the server tests' real services ({@link TributaryServices}: embedded PostgreSQL, an in-process Kafka
 * broker, a temporary warehouse and a secrets key) for every {@code @QuarkusTest} of a function build: stream-api
 * reads start positions from the broker, and ingest tests take their events from records a real broker delivered.
 */
@Tag("quarkus")
@QuarkusTestResource(value = TributaryServices.class, restrictToAnnotatedClass = false)
public final class LambdaTestResources {
    private LambdaTestResources() {}
}
