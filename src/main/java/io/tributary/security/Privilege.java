package io.tributary.security;

import java.util.Optional;

/** Privileges on tables, connections and secret scopes, spelled as the API spells them. */
public enum Privilege {
    SELECT("SELECT"),
    MANAGE("MANAGE"),
    /** Pushing records into a direct stream's ingestion table (SPEC "Direct ingest"). */
    MODIFY("MODIFY"),
    USE_CONNECTION("USE CONNECTION"),
    READ("READ"),
    WRITE("WRITE");

    private final String apiName;

    Privilege(String apiName) {
        this.apiName = apiName;
    }

    public String apiName() {
        return apiName;
    }

    public static Optional<Privilege> fromApiName(String text) {
        for (Privilege p : values()) {
            if (p.apiName.equalsIgnoreCase(text)) {
                return Optional.of(p);
            }
        }
        return Optional.empty();
    }
}
