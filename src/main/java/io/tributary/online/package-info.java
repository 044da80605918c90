/**
 * Synced tables (docs/SPEC.md, "Synced tables"): a PostgreSQL table kept in step with a Delta table, one row per
 * primary key, for key lookups in milliseconds. Plain JDBC and the core's {@code delta} reads; no framework.
 */
package io.tributary.online;
