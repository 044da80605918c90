package io.tributary.api;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Random;

/**
 * Payload schemas for {@link HostileRequestsTest}: over the column limit in each format, broken, deep, and
 * exploding ({@code $ref} bombs, reused Avro named types).
 */
final class HostileSchemas {
    private final Random random;
    private final HostileValues values;

    HostileSchemas(Random random, HostileValues values) {
        this.random = random;
        this.values = values;
    }

    /** A JSON Schema, Avro or Protobuf schema of 12,000-60,000 fields: over the column limit. */
    ObjectNode manyColumns() {
        int n = 12_000 + random.nextInt(48_000);
        StringBuilder sb = new StringBuilder();
        ObjectNode side = HostileValues.NODES.objectNode();
        switch (random.nextInt(3)) {
            case 0 -> {
                sb.append("{\"type\":\"object\",\"properties\":{");
                for (int i = 0; i < n; i++) {
                    sb.append(i == 0 ? "" : ",").append("\"f").append(i).append("\":{\"type\":\"string\"}");
                }
                side.put("json_schema", sb.append("}}").toString());
            }
            case 1 -> {
                sb.append("{\"type\":\"record\",\"name\":\"R\",\"fields\":[");
                for (int i = 0; i < n; i++) {
                    sb.append(i == 0 ? "" : ",").append("{\"name\":\"f").append(i).append("\",\"type\":\"int\"}");
                }
                side.put("avro_schema", sb.append("]}").toString());
            }
            default -> {
                sb.append("syntax = \"proto3\"; package fuzz; message M {");
                for (int i = 0; i < n; i++) {
                    sb.append(" int32 f").append(i).append(" = ").append(i + 1).append(';');
                }
                side.putObject("proto_schema").put("schema_text", sb.append(" }").toString())
                        .put("message_name", "fuzz.M");
            }
        }
        return side;
    }

    /** Broken, deep or exploding schema texts. */
    ObjectNode hostileSchema() {
        ObjectNode side = HostileValues.NODES.objectNode();
        switch (random.nextInt(7)) {
            case 0 -> side.put("avro_schema", "{\"type\": \"record\", " + values.hostileString());
            case 1 -> side.put("json_schema", "{\"type\":\"object\",\"properties\":{\"a\":".repeat(2_000) + "{}");
            case 2 -> {
                // A $ref bomb: 20 definitions of 10 properties each pointing at the next one (10^20 columns).
                StringBuilder defs = new StringBuilder("{\"$ref\":\"#/$defs/d0\",\"$defs\":{");
                for (int d = 0; d < 20; d++) {
                    defs.append(d == 0 ? "" : ",").append("\"d").append(d).append("\":{\"type\":\"object\","
                            + "\"properties\":{");
                    for (int p = 0; p < 10; p++) {
                        defs.append(p == 0 ? "" : ",").append("\"p").append(p).append("\":")
                                .append(d == 19 ? "{\"type\":\"string\"}" : "{\"$ref\":\"#/$defs/d" + (d + 1) + "\"}");
                    }
                    defs.append("}}");
                }
                side.put("json_schema", defs.append("}}").toString());
            }
            case 3 -> side.putObject("proto_schema").put("schema_text", "syntax = \"proto3\"; " + values.hostileString())
                    .put("message_name", values.hostileString());
            case 4 -> side.put("avro_schema", "[".repeat(5_000));
            case 5 -> {
                // Avro named types reused: 30 records of 2 fields each holding the previous one twice (2^30).
                StringBuilder avro = new StringBuilder("{\"type\":\"record\",\"name\":\"r0\",\"fields\":"
                        + "[{\"name\":\"x\",\"type\":\"int\"}]}");
                for (int i = 1; i < 30; i++) {
                    avro = new StringBuilder("{\"type\":\"record\",\"name\":\"r" + i + "\",\"fields\":[{\"name\":"
                            + "\"a\",\"type\":" + avro + "},{\"name\":\"b\",\"type\":\"r" + (i - 1) + "\"}]}");
                }
                side.put("avro_schema", avro.toString());
            }
            default -> side.put("json_schema", values.hostileString());
        }
        return side;
    }
}
