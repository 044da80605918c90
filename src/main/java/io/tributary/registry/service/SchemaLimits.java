package io.tributary.registry.service;

import io.quarkus.runtime.StartupEvent;
import io.tributary.schema.ColumnLimit;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/** Hands {@code TRIBUTARY_MAX_COLUMNS} (SPEC 6) to the schema compilers before the first request. */
@ApplicationScoped
public class SchemaLimits {

    public void apply(@Observes StartupEvent event,
            @ConfigProperty(name = "tributary.max-columns", defaultValue = "" + ColumnLimit.DEFAULT) int maxColumns) {
        ColumnLimit.set(maxColumns);
    }
}
