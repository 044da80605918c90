package io.tributary.registry;

import io.tributary.delta.Tables;
import io.tributary.delta.Warehouse;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import java.util.Optional;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/** The warehouse of SPEC 6 ({@code TRIBUTARY_WAREHOUSE}, {@code TRIBUTARY_S3_ENDPOINT}) as a CDI bean. */
class WarehouseProducer {

    @Produces
    @Singleton
    Tables tables(@ConfigProperty(name = "tributary.warehouse") String root,
            @ConfigProperty(name = "tributary.s3-endpoint") Optional<String> s3Endpoint,
            @ConfigProperty(name = "tributary.s3-region") Optional<String> s3Region) {
        return Tables.forWarehouse(new Warehouse(root, s3Endpoint, s3Region));
    }
}
