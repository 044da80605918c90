package io.tributary.schema;

import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaLocation;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import tools.jackson.databind.JsonNode;

/**
 * Checks that a JSON document is a JSON Schema by validating it against the meta-schema of its dialect
 * ({@code $schema}, else draft 2020-12). The meta-schemas ship inside json-schema-validator and remote fetching is off,
 * so this never leaves the process.
 */
final class JsonSchemaMetaValidator {
    private static final SpecificationVersion DEFAULT = SpecificationVersion.DRAFT_2020_12;
    private static final Map<SpecificationVersion, Schema> META_SCHEMAS = new EnumMap<>(SpecificationVersion.class);

    private JsonSchemaMetaValidator() {}

    /** @return what is wrong, or empty when the node is a schema */
    static Optional<String> problem(JsonNode schema) {
        if (!schema.isObject() && !schema.isBoolean()) {
            return Optional.of("is not a JSON Schema: a schema is a JSON object such as {\"type\": \"object\", "
                    + "\"properties\": {...}} (or true/false)");
        }
        SpecificationVersion version = DEFAULT;
        JsonNode declared = schema.get("$schema");
        if (declared != null) {
            Optional<SpecificationVersion> known = declared.isString()
                    ? SpecificationVersion.fromDialectId(declared.stringValue()) : Optional.empty();
            if (known.isEmpty()) {
                return Optional.of("declares an unsupported $schema " + declared + "; use one of "
                        + Arrays.stream(SpecificationVersion.values()).map(v -> "\"" + v.getDialectId() + "\"")
                        .collect(Collectors.joining(", ")) + " or leave $schema out (draft 2020-12)");
            }
            version = known.get();
        }
        List<Error> errors = metaSchema(version).validate(schema);
        if (errors.isEmpty()) {
            return Optional.empty();
        }
        String listed = errors.stream().limit(5).map(JsonSchemaMetaValidator::describe).collect(Collectors.joining("; "));
        return Optional.of("is not a valid JSON Schema (" + version.getDialectId() + "): " + listed
                + (errors.size() > 5 ? "; and " + (errors.size() - 5) + " more" : "")
                + ". Fix the schema so that it validates against its meta-schema");
    }

    private static String describe(Error e) {
        String at = e.getInstanceLocation() == null ? "" : e.getInstanceLocation().toString();
        return (at.isEmpty() || at.equals("$") ? "at the top level" : "at " + at) + ": " + e.getMessage();
    }

    private static synchronized Schema metaSchema(SpecificationVersion version) {
        return META_SCHEMAS.computeIfAbsent(version, v -> {
            SchemaRegistry registry = SchemaRegistry.withDefaultDialect(v,
                    b -> b.schemaLoader(l -> l.fetchRemoteResources(false)));
            return registry.getSchema(SchemaLocation.of(v.getDialectId()));
        });
    }
}
