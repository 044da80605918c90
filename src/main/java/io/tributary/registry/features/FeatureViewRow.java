package io.tributary.registry.features;

import java.time.Instant;

/** A feature view's registry row; {@code definition} is the create request as JSON. */
public record FeatureViewRow(String fullName, String id, String sourceTableName, String sourceLocation,
        String sourceStreamId, String offlineLocation, String onlineTables, String definition, String owner,
        Instant createdAt) {}
