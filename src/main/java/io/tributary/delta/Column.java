package io.tributary.delta;

/** A top-level column as Unity Catalog shows it: {@code type} is Spark SQL's type text, e.g. {@code struct<id:bigint>}. */
public record Column(String name, String type, boolean nullable) {}
