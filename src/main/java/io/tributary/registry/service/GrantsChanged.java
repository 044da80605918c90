package io.tributary.registry.service;

/**
 * Fired (synchronously, CDI) once a change of grants has committed on this server, so that the lookups' access caches
 * drop what they remember at once; a change made on another server reaches them when their entries expire (SPEC
 * §9.1, §10.1).
 */
public record GrantsChanged(String securableType, String securableName) {}
