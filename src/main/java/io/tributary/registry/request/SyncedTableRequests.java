package io.tributary.registry.request;

import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;
import java.util.List;
import java.util.Map;

/** The request bodies of synced tables (SPEC "Synced tables"). */
public final class SyncedTableRequests {
    private SyncedTableRequests() {}

    public record Create(String name, Spec spec) implements ApiRequest {}

    @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
    public record Spec(String sourceTableFullName, List<String> primaryKeyColumns, String timeseriesKey,
            String schedulingPolicy) {}

    /** Keys by the synced table's (flattened) key column names; a value may be null (it finds no row). */
    public record Lookup(List<Map<String, Object>> keys) implements ApiRequest {
        /**
         * A lookup body of the plain shape ({@code {"keys": [{"column": scalar, ...}, ...]}}, strings, integers,
         * booleans and nulls) read in one pass of the streaming parser, with the values {@link RegistryJson#MAPPER}
         * gives; null for anything else (a float, a nested value, another field, a duplicate, a parse failure),
         * which the mapper then reads with the answers and error messages it always gave. Lookups are the API's
         * one request at thousands a second, and binding through the mapper was 7% of the event loops' time in
         * bench/online.
         */
        public static Lookup plain(byte[] body) {
            try (com.fasterxml.jackson.core.JsonParser p = RegistryJson.MAPPER.getFactory().createParser(body)) {
                if (p.nextToken() != com.fasterxml.jackson.core.JsonToken.START_OBJECT
                        || p.nextToken() != com.fasterxml.jackson.core.JsonToken.FIELD_NAME
                        || !"keys".equals(p.currentName())
                        || p.nextToken() != com.fasterxml.jackson.core.JsonToken.START_ARRAY) {
                    return null;
                }
                List<Map<String, Object>> keys = new java.util.ArrayList<>();
                com.fasterxml.jackson.core.JsonToken t;
                while ((t = p.nextToken()) != com.fasterxml.jackson.core.JsonToken.END_ARRAY) {
                    if (t == com.fasterxml.jackson.core.JsonToken.VALUE_NULL) {
                        keys.add(null);
                        continue;
                    }
                    if (t != com.fasterxml.jackson.core.JsonToken.START_OBJECT) {
                        return null;
                    }
                    Map<String, Object> key = new java.util.LinkedHashMap<>();
                    while ((t = p.nextToken()) == com.fasterxml.jackson.core.JsonToken.FIELD_NAME) {
                        String name = p.currentName();
                        Object value;
                        switch (p.nextToken()) {
                            case VALUE_STRING -> value = p.getText();
                            case VALUE_NUMBER_INT -> value = p.getNumberValue();
                            case VALUE_TRUE -> value = Boolean.TRUE;
                            case VALUE_FALSE -> value = Boolean.FALSE;
                            case VALUE_NULL -> value = null;
                            default -> {
                                return null;
                            }
                        }
                        if (key.containsKey(name)) {
                            return null;
                        }
                        key.put(name, value);
                    }
                    if (t != com.fasterxml.jackson.core.JsonToken.END_OBJECT) {
                        return null;
                    }
                    keys.add(key);
                }
                if (p.nextToken() != com.fasterxml.jackson.core.JsonToken.END_OBJECT || p.nextToken() != null) {
                    return null;
                }
                return new Lookup(keys);
            } catch (java.io.IOException | RuntimeException e) {
                return null;
            }
        }
    }
}
