package io.tributary.security;

/** Who is calling. {@code admin} principals may do everything (SPEC 3). */
public record Principal(String name, boolean admin) {}
