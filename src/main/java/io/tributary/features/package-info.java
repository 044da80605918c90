/**
 * Streaming feature views (docs/SPEC.md, "Feature views"): windowed aggregations over a Delta table's rows, kept as
 * mergeable partial aggregates per entity and tile in the online database, materialized incrementally and exactly
 * once into an offline Delta feature table and served by key. Plain Java, JDBC and the core's {@code delta}; no
 * framework.
 */
package io.tributary.features;
