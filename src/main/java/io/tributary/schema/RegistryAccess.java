package io.tributary.schema;

/** How to reach a schema registry. The secret is already decrypted; it must never be printed. */
public record RegistryAccess(String url, String apiKey, String apiSecret) {
    @Override
    public String toString() {
        return "RegistryAccess[url=" + url + ", apiKey=" + apiKey + ", apiSecret=***]";
    }
}
