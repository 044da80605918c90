package io.tributary.config;

/**
 * Where local mode keeps its embedded services and generated secrets key (SPEC 6, {@code TRIBUTARY_DATA_DIR}): the
 * one place of the setting's name and default. A constant rather than a {@code @ConfigMapping}: the server's local
 * mode reads it before Quarkus and its configuration exist ({@code server.local.LocalServices}), and the secrets key
 * is found there by a bean afterwards ({@code security.SecretCipher}); both must agree on the default.
 */
public final class LocalMode {
    public static final String DATA_DIR = "tributary.data-dir";
    public static final String DEFAULT_DATA_DIR = "./data";

    private LocalMode() {}
}
