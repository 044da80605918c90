package io.tributary.features;

/** One tile of one feature of one entity; {@code entity} is the entity's canonical key text ({@link EntityKeys}). */
record TileKey(String entity, int feature, long start) {}
