package io.tributary.registry.service;

import io.tributary.config.LocalPaths;
import io.tributary.delta.Tables;
import io.tributary.delta.Warehouse;
import io.tributary.registry.request.AllowedLocations;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import java.util.Optional;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/** The warehouse of SPEC 6 ({@code TRIBUTARY_WAREHOUSE}, {@code TRIBUTARY_S3_ENDPOINT}) and its allowed locations. */
public class WarehouseProducer {

    @Produces
    @Singleton
    public Tables tables(@ConfigProperty(name = "tributary.warehouse") String root,
            @ConfigProperty(name = "tributary.s3-endpoint") Optional<String> s3Endpoint,
            @ConfigProperty(name = "tributary.s3-region") Optional<String> s3Region) {
        return Tables.forWarehouse(
                new Warehouse(LocalPaths.usable("TRIBUTARY_WAREHOUSE", root), s3Endpoint, s3Region));
    }

    /** The warehouse and {@code TRIBUTARY_EXTERNAL_LOCATIONS}: the only places a table may resolve to. */
    @Produces
    @Singleton
    public AllowedLocations allowedLocations(@ConfigProperty(name = "tributary.warehouse") String root,
            @ConfigProperty(name = "tributary.external-locations") Optional<java.util.List<String>> external) {
        java.util.List<String> roots = external.orElse(java.util.List.of());
        roots.forEach(r -> LocalPaths.usable("TRIBUTARY_EXTERNAL_LOCATIONS", r));
        return new AllowedLocations(LocalPaths.usable("TRIBUTARY_WAREHOUSE", root), roots);
    }
}
