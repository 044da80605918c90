package io.tributary.schema;

import com.fasterxml.jackson.databind.JsonNode;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.PathType;
import com.networknt.schema.SchemaLocation;
import com.networknt.schema.SchemaValidatorsConfig;
import com.networknt.schema.SpecVersion.VersionFlag;
import com.networknt.schema.ValidationMessage;
import com.networknt.schema.resource.AllowSchemaLoader;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * Checks that a JSON document is a JSON Schema by validating it against the meta-schema of its dialect
 * ({@code $schema}, else draft 2020-12). The meta-schemas ship inside json-schema-validator and only those
 * ({@code classpath:} after the library maps the meta-schema IRIs) may be loaded, so this never leaves the process.
 *
 * <p>json-schema-validator 1.5 rather than 3.x: 1.5 is built on Jackson 2, which every build carries anyway, while 3.x
 * would bring Jackson 3 (2.6 MB) into each Lambda zip for this one check (function-configs/README.md).
 */
final class JsonSchemaMetaValidator {
    private static final VersionFlag DEFAULT = VersionFlag.V202012;
    private static final Map<VersionFlag, JsonSchema> META_SCHEMAS = new EnumMap<>(VersionFlag.class);
    /** Instance locations as JSON pointers ({@code /properties/a/type}), as the schema's author writes them. */
    private static final SchemaValidatorsConfig CONFIG = SchemaValidatorsConfig.builder()
            .pathType(PathType.JSON_POINTER).build();

    private JsonSchemaMetaValidator() {}

    /** @return what is wrong, or empty when the node is a schema */
    static Optional<String> problem(JsonNode schema) {
        if (!schema.isObject() && !schema.isBoolean()) {
            return Optional.of("is not a JSON Schema: a schema is a JSON object such as {\"type\": \"object\", "
                    + "\"properties\": {...}} (or true/false)");
        }
        VersionFlag version = DEFAULT;
        JsonNode declared = schema.get("$schema");
        if (declared != null) {
            Optional<VersionFlag> known = declared.isTextual()
                    ? VersionFlag.fromId(declared.textValue()) : Optional.empty();
            if (known.isEmpty()) {
                return Optional.of("declares an unsupported $schema " + declared + "; use one of "
                        + Arrays.stream(VersionFlag.values()).map(v -> "\"" + v.getId() + "\"")
                        .collect(Collectors.joining(", ")) + " or leave $schema out (draft 2020-12)");
            }
            version = known.get();
        }
        List<ValidationMessage> errors = List.copyOf(metaSchema(version).validate(schema));
        if (errors.isEmpty()) {
            return Optional.empty();
        }
        String listed = errors.stream().limit(5).map(JsonSchemaMetaValidator::describe)
                .collect(Collectors.joining("; "));
        return Optional.of("is not a valid JSON Schema (" + version.getId() + "): " + listed
                + (errors.size() > 5 ? "; and " + (errors.size() - 5) + " more" : "")
                + ". Fix the schema so that it validates against its meta-schema");
    }

    private static String describe(ValidationMessage e) {
        String at = e.getInstanceLocation() == null ? "" : e.getInstanceLocation().toString();
        return (at.isEmpty() || at.equals("$") || at.equals("/") ? "at the top level" : "at " + at) + ": "
                + e.getError();
    }

    private static synchronized JsonSchema metaSchema(VersionFlag version) {
        return META_SCHEMAS.computeIfAbsent(version, v -> {
            JsonSchemaFactory factory = JsonSchemaFactory.getInstance(v, b -> b.schemaLoaders(loaders -> loaders
                    .add(new AllowSchemaLoader(iri -> iri.toString().startsWith("classpath:")))));
            return factory.getSchema(SchemaLocation.of(v.getId()), CONFIG);
        });
    }
}
