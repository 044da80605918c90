package io.tributary.schema;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.avro.Schema;

/**
 * JSON Schema text to a column type and a decoding plan (SPEC 4.1): string (date-time -> TIMESTAMP, date -> DATE),
 * number -> DOUBLE, integer -> LONG, boolean, object with properties -> STRUCT in declared order, array -> ARRAY of
 * items, a type list with "null" (or anyOf/oneOf of one schema and null) -> nullable; anything else is a STRING
 * holding the raw JSON text. Local {@code $ref}s ({@code #/...}) are followed; a reference back into itself ends in a
 * raw JSON STRING, since a column cannot nest without end. Struct fields are always nullable because missing
 * properties are NULL.
 */
final class JsonSchemaCompiler {
    // Jackson 2 (json-schema-validator 1.5's, the one Jackson of the functions) accepts trailing content by default;
    // a schema text is exactly one JSON document.
    private static final JsonMapper MAPPER = JsonMapper.builder()
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS).build();

    record Compiled(Schema columnSchema, JsonValueReader root) {
        Decoder newDecoder() {
            return new JsonDecoder(root);
        }
    }

    /** A mapped schema node: its column type (without the null union) and its reader. */
    private record Mapped(Schema type, boolean nullable, JsonValueReader reader) {}

    private final String field;
    private final RecordNames names;
    private final JsonNode document;
    private final Deque<String> refsInProgress = new ArrayDeque<>();

    private JsonSchemaCompiler(String field, RecordNames names, JsonNode document) {
        this.field = field;
        this.names = names;
        this.document = document;
    }

    static Compiled compile(String text, String field, RecordNames names) {
        if (text == null || text.isBlank()) {
            throw new InvalidSchemaException(field, "is empty; give a JSON Schema such as "
                    + "{\"type\": \"object\", \"properties\": {\"id\": {\"type\": \"string\"}}}");
        }
        JsonNode document;
        try {
            document = MAPPER.readTree(text);
        } catch (JsonProcessingException e) {
            String at = e.getLocation() == null ? ""
                    : " at line " + e.getLocation().getLineNr() + ", column " + e.getLocation().getColumnNr();
            throw new InvalidSchemaException(field, "is not valid JSON (" + LibraryMessages.clean(e.getOriginalMessage()) + at
                    + "); give the JSON Schema as a JSON object");
        }
        // Counted before the meta-validation, which is the expensive step on a very large schema.
        if (declaredProperties(document) > ColumnLimit.max()) {
            throw ColumnLimit.tooMany(field, ColumnLimit.max());
        }
        Optional<String> problem = JsonSchemaMetaValidator.problem(document);
        if (problem.isPresent()) {
            throw new InvalidSchemaException(field, problem.get());
        }
        JsonSchemaCompiler compiler = new JsonSchemaCompiler(field, names, document);
        compiler.refsInProgress.push("#");
        Mapped root = compiler.map(document, "", "#");
        return new Compiled(root.type, root.reader);
    }

    /** Every property declared anywhere in the document, referenced or not: a bound on the columns without $refs. */
    private static long declaredProperties(JsonNode document) {
        long count = 0;
        Deque<JsonNode> pending = new ArrayDeque<>();
        pending.push(document);
        while (!pending.isEmpty()) {
            JsonNode node = pending.pop();
            if (node.isObject()) {
                JsonNode properties = node.get("properties");
                if (properties != null && properties.isObject()) {
                    count += properties.size();
                }
            }
            if (node.isContainerNode()) {
                for (JsonNode child : node) {
                    pending.push(child);
                }
            }
        }
        return count;
    }

    private Mapped map(JsonNode node, String path, String pointer) {
        if (!node.isObject()) {
            return raw(true, path);
        }
        JsonNode ref = node.get("$ref");
        if (ref != null) {
            return mapRef(ref, path, pointer);
        }
        JsonNode type = node.get("type");
        if (type == null) {
            return mapNullableAlternative(node, path, pointer);
        }
        List<String> types = new ArrayList<>();
        if (type.isTextual()) {
            types.add(type.textValue());
        } else {
            for (JsonNode t : type) {
                types.add(t.asText());
            }
        }
        boolean nullable = types.remove("null");
        if (types.size() != 1) {
            return raw(true, path);
        }
        return switch (types.get(0)) {
            case "string" -> mapString(node, nullable, path);
            case "number" -> new Mapped(Schema.create(Schema.Type.DOUBLE), nullable,
                    new JsonValueReader.Number(nullable, path));
            case "integer" -> new Mapped(Schema.create(Schema.Type.LONG), nullable,
                    new JsonValueReader.Integer(nullable, path));
            case "boolean" -> new Mapped(Schema.create(Schema.Type.BOOLEAN), nullable,
                    new JsonValueReader.Bool(nullable, path));
            case "object" -> mapObject(node, nullable, path, pointer);
            case "array" -> mapArray(node, nullable, path, pointer);
            default -> raw(nullable, path);
        };
    }

    /**
     * {@code anyOf}/{@code oneOf} of one schema and {"type": "null"} is how generators (Pydantic, for one) write a
     * nullable type; it is read like a type list with "null". Any other combination stays raw JSON text.
     */
    private Mapped mapNullableAlternative(JsonNode node, String path, String pointer) {
        for (String keyword : List.of("anyOf", "oneOf")) {
            JsonNode alternatives = node.get(keyword);
            if (alternatives == null || !alternatives.isArray() || alternatives.size() != 2) {
                continue;
            }
            for (int i = 0; i < 2; i++) {
                JsonNode nullType = alternatives.get(1 - i).get("type");
                if (nullType != null && nullType.isTextual() && nullType.textValue().equals("null")
                        && alternatives.get(1 - i).size() == 1) {
                    Mapped other = map(alternatives.get(i), path, pointer + "/" + keyword + "/" + i);
                    return other.nullable ? other : new Mapped(other.type, true, new JsonValueReader.OrNull(other.reader));
                }
            }
        }
        return raw(true, path);
    }

    private Mapped mapRef(JsonNode ref, String path, String pointer) {
        String target = ref.isTextual() ? ref.textValue() : "";
        if (!target.startsWith("#")) {
            throw new InvalidSchemaException(field, "$ref " + ref + " at " + pointer + " points outside this schema;"
                    + " only local references such as \"#/$defs/Address\" are followed, so inline the referenced"
                    + " schema under $defs");
        }
        JsonNode resolved;
        try {
            resolved = document.at(target.substring(1));
        } catch (IllegalArgumentException e) {
            resolved = null;
        }
        if (resolved == null || resolved.isMissingNode()) {
            throw new InvalidSchemaException(field, "$ref \"" + target + "\" at " + pointer
                    + " does not resolve to anything in this schema; point it at an existing definition");
        }
        if (refsInProgress.contains(target)) {
            return raw(true, path);
        }
        refsInProgress.push(target);
        try {
            return map(resolved, path, target);
        } finally {
            refsInProgress.pop();
        }
    }

    private Mapped mapString(JsonNode node, boolean nullable, String path) {
        JsonNode format = node.get("format");
        String f = format != null && format.isTextual() ? format.textValue() : "";
        return switch (f) {
            case "date-time" -> new Mapped(ColumnTypes.timestamp(), nullable,
                    new JsonValueReader.Timestamp(nullable, path));
            case "date" -> new Mapped(ColumnTypes.date(), nullable, new JsonValueReader.Date(nullable, path));
            default -> new Mapped(ColumnTypes.string(), nullable, new JsonValueReader.Text(nullable, path));
        };
    }

    private Mapped mapObject(JsonNode node, boolean nullable, String path, String pointer) {
        JsonNode properties = node.get("properties");
        // An object without declared properties (or with none) has no columns to become: Parquet cannot hold an
        // empty struct, so it is kept as raw JSON text like any other open-ended value.
        if (properties == null || !properties.isObject() || properties.isEmpty()) {
            return raw(nullable, path);
        }
        names.columns().add(field, properties.size());
        FieldNames columns = new FieldNames(field, path);
        List<String> jsonNames = new ArrayList<>();
        List<JsonValueReader> readers = new ArrayList<>();
        List<Schema.Field> fields = new ArrayList<>();
        for (Map.Entry<String, JsonNode> property : properties.properties()) {
            String name = property.getKey();
            String column = columns.add(name, "properties");
            String childPath = path.isEmpty() ? column : path + "." + column;
            Mapped child = map(property.getValue(), childPath, pointer + "/properties/" + name);
            jsonNames.add(name);
            readers.add(child.reader);
            fields.add(ColumnTypes.field(column, ColumnTypes.nullable(child.type)));
        }
        Schema record = ColumnTypes.record(names.next(path), fields);
        return new Mapped(record, nullable, new JsonValueReader.Struct(nullable, path, record, jsonNames, readers));
    }

    private Mapped mapArray(JsonNode node, boolean nullable, String path, String pointer) {
        JsonNode items = node.get("items");
        Mapped item = items != null && items.isObject()
                ? map(items, path, pointer + "/items")
                : raw(true, path);
        Schema itemType = item.nullable ? ColumnTypes.nullable(item.type) : item.type;
        return new Mapped(Schema.createArray(itemType), nullable,
                new JsonValueReader.Array(nullable, path, item.reader));
    }

    private static Mapped raw(boolean nullable, String path) {
        return new Mapped(ColumnTypes.string(), nullable, new JsonValueReader.Raw(nullable, path));
    }
}
