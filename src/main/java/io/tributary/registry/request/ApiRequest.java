package io.tributary.registry.request;

/**
 * A request body of the API. The API binds every type marked so with {@link RegistryJson}'s strict mapper (unknown
 * fields, trailing tokens, nulls for primitives and scalar coercions refused, each failure naming the field), never
 * with the framework's lenient default one.
 */
public interface ApiRequest {}
