package io.tributary.registry.request;

import com.fasterxml.jackson.annotation.JsonInclude;

/** {@code {"scope": "s", "key": "k"}}: a reference to a secret, never its value. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record SecretRef(String scope, String key) {}
