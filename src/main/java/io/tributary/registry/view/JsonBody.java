package io.tributary.registry.view;

import java.nio.charset.StandardCharsets;

/**
 * A response body the registry has already written as JSON. Stream views are written straight from the stored
 * definition's text with a streaming generator, so the API passes the bytes through instead of building and
 * serialising a tree per stream.
 */
public record JsonBody(byte[] utf8) {
    @Override
    public String toString() {
        return new String(utf8, StandardCharsets.UTF_8);
    }
}
