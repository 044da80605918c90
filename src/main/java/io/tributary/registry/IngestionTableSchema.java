package io.tributary.registry;

import io.tributary.schema.SideSchema;
import java.util.List;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.avro.SchemaBuilder;

/**
 * The ingestion table's row schema (SPEC 4, "Table") and the check of deduplication column paths against it.
 * The schema room's StreamSchema owns these rules once it lands; this class is the single place to switch over.
 */
final class IngestionTableSchema {
    private IngestionTableSchema() {}

    static Schema rowSchema(SideSchema key, SideSchema value) {
        Schema timestamp = LogicalTypes.timestampMicros().addToSchema(Schema.create(Schema.Type.LONG));
        return SchemaBuilder.record("ingestion_row").namespace("io.tributary").fields()
                .name("key").type(key.columnSchema()).withDefault(null)
                .name("value").type(value.columnSchema()).withDefault(null)
                .name("stream_record_timestamp").type(nullable(timestamp)).withDefault(null)
                .name("record_source").type(nullable(Schema.create(Schema.Type.STRING))).withDefault(null)
                .name("kafka_topic").type(nullable(Schema.create(Schema.Type.STRING))).withDefault(null)
                .name("kafka_partition").type(nullable(Schema.create(Schema.Type.INT))).withDefault(null)
                .name("kafka_offset").type(nullable(Schema.create(Schema.Type.LONG))).withDefault(null)
                .endRecord();
    }

    /**
     * @throws RegistryException naming {@code ingestion_config.deduplication_columns[i]} when a path does not name a
     *                           column or a nested struct field of the row schema
     */
    static void checkColumnPaths(Schema rowSchema, List<String> paths) {
        for (int i = 0; i < paths.size(); i++) {
            String path = paths.get(i);
            Schema current = rowSchema;
            String walked = "";
            for (String part : path.split("\\.", -1)) {
                Schema record = nonNull(current);
                Schema.Field field = record.getType() == Schema.Type.RECORD ? record.getField(part) : null;
                if (field == null) {
                    String where = walked.isEmpty() ? "the table" : "'" + walked + "'";
                    String known = record.getType() == Schema.Type.RECORD
                            ? String.join(", ", record.getFields().stream().map(Schema.Field::name).toList())
                            : "none (it is not a struct)";
                    throw RegistryException.invalid("ingestion_config.deduplication_columns[" + i + "]", "'"
                            + Names.shorten(path) + "' does not name a column: " + where + " has no field '"
                            + Names.shorten(part) + "' (its fields: " + known + ")");
                }
                walked = walked.isEmpty() ? part : walked + "." + part;
                current = field.schema();
            }
        }
    }

    private static Schema nullable(Schema s) {
        return Schema.createUnion(Schema.create(Schema.Type.NULL), s);
    }

    private static Schema nonNull(Schema s) {
        if (s.getType() != Schema.Type.UNION) {
            return s;
        }
        return s.getTypes().stream().filter(t -> t.getType() != Schema.Type.NULL).findFirst().orElse(s);
    }
}
