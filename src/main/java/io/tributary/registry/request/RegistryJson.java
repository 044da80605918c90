package io.tributary.registry.request;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.cfg.CoercionAction;
import com.fasterxml.jackson.databind.cfg.CoercionInputShape;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.type.LogicalType;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Strict JSON for request bodies and stored definitions: unknown fields, trailing content and type mismatches are
 * rejected with the path of the offending field. Parser error messages are not passed through, since they can quote
 * the input, and the input can hold a secret.
 */
public final class RegistryJson {
    public static final ObjectMapper MAPPER = JsonMapper.builder()
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
            .disable(MapperFeature.ALLOW_COERCION_OF_SCALARS)
            .disable(StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION)
            // A number or boolean where a string belongs is a wrong type, not a name: "scope": true is refused.
            .withCoercionConfig(LogicalType.Textual, c -> c
                    .setCoercion(CoercionInputShape.Integer, CoercionAction.Fail)
                    .setCoercion(CoercionInputShape.Float, CoercionAction.Fail)
                    .setCoercion(CoercionInputShape.Boolean, CoercionAction.Fail))
            .build();

    private RegistryJson() {}

    /** A request body the framework bound, or the MALFORMED_REQUEST answer to an empty one. */
    public static <T> T present(T body) {
        if (body == null) {
            throw empty();
        }
        return body;
    }

    private static ApiException empty() {
        return new ApiException(ErrorCode.MALFORMED_REQUEST,
                "the request body is empty: send a JSON object with Content-Type application/json");
    }

    /** Parses a request body; {@code null} or blank bodies are malformed. */
    public static <T> T parse(String body, Class<T> type) {
        if (body == null || body.isBlank()) {
            throw empty();
        }
        try {
            T value = MAPPER.readValue(body, type);
            if (value == null) {
                throw new ApiException(ErrorCode.MALFORMED_REQUEST, "the request body is null: send a JSON object");
            }
            return value;
        } catch (UnrecognizedPropertyException e) {
            String path = path(e);
            String known = e.getKnownPropertyIds() == null ? "" : e.getKnownPropertyIds().stream().map(Object::toString)
                    .sorted().collect(Collectors.joining(", "));
            throw new ApiException(ErrorCode.INVALID_PARAMETER_VALUE,
                    path + ": unknown field; remove it" + (known.isEmpty() ? "" : " (known fields here: " + known + ")"));
        } catch (MismatchedInputException e) {
            String path = path(e);
            if (path.isEmpty()) {
                throw new ApiException(ErrorCode.MALFORMED_REQUEST,
                        "the request body must be a JSON object");
            }
            throw new ApiException(ErrorCode.INVALID_PARAMETER_VALUE,
                    path + ": has the wrong type; expected " + describe(e.getTargetType()));
        } catch (JsonMappingException e) {
            String path = path(e);
            if (e.getCause() instanceof com.fasterxml.jackson.core.JsonParseException syntax) {
                // Broken JSON inside a field (a schema pasted over two lines, say): the field alone said too little.
                throw new ApiException(ErrorCode.MALFORMED_REQUEST,
                        notJson(syntax, path.isEmpty() ? "" : " in " + path));
            }
            throw new ApiException(ErrorCode.INVALID_PARAMETER_VALUE,
                    (path.isEmpty() ? "the request body" : path) + ": cannot be read as the expected value");
        } catch (com.fasterxml.jackson.core.exc.StreamConstraintsException e) {
            throw new ApiException(ErrorCode.MALFORMED_REQUEST, "the request body is nested too deeply or holds "
                    + "too long a value (" + e.getOriginalMessage() + "): send a JSON object as SPEC section 2 shows");
        } catch (JsonProcessingException e) {
            throw new ApiException(ErrorCode.MALFORMED_REQUEST, notJson(e, ""));
        }
    }

    /** Where the JSON broke, and for the commonest slip (a raw line break or tab inside a string) what to write. */
    private static String notJson(JsonProcessingException e, String in) {
        String at = e.getLocation() == null ? "" : " (line " + e.getLocation().getLineNr() + ", column "
                + e.getLocation().getColumnNr() + ")";
        String original = e.getOriginalMessage();
        if (original != null && original.startsWith("Illegal unquoted character")) {
            return "the request body is not valid JSON" + in + at + ": a string holds a raw control character (a line break or tab); "
                    + "write it escaped (\\n, \\t) or keep the string on one line";
        }
        return "the request body is not valid JSON" + in + at + ": send a JSON object";
    }

    public static String write(Object value) {
        try {
            return MAPPER.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot serialize " + value.getClass().getSimpleName());
        }
    }

    public static <T> T read(String json, Class<T> type) {
        try {
            return MAPPER.readValue(json, type);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("stored JSON of " + type.getSimpleName() + " does not read back");
        }
    }

    /** {@code a.b[2].c}: the JSON path of a mapping failure. */
    public static String path(JsonMappingException e) {
        StringBuilder sb = new StringBuilder();
        List<JsonMappingException.Reference> refs = e.getPath();
        for (JsonMappingException.Reference ref : refs) {
            if (ref.getFieldName() != null) {
                if (sb.length() > 0) {
                    sb.append('.');
                }
                sb.append(ref.getFieldName());
            } else if (ref.getIndex() >= 0) {
                sb.append('[').append(ref.getIndex()).append(']');
            }
        }
        return sb.toString();
    }

    private static String describe(Class<?> type) {
        if (type == null) {
            return "another JSON type";
        }
        if (type == String.class) {
            return "a string";
        }
        if (List.class.isAssignableFrom(type)) {
            return "an array";
        }
        if (type == Integer.class || type == int.class || type == Long.class || type == long.class) {
            return "a number";
        }
        if (type == Boolean.class || type == boolean.class) {
            return "true or false";
        }
        return "an object";
    }
}
