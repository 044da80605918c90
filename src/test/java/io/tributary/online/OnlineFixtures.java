package io.tributary.online;

import io.tributary.testing.Api;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.postgresql.ds.PGSimpleDataSource;

/** The machine's PostgreSQL (a schema per test class, dropped after) and ingestion-shaped rows for synced tables. */
public final class OnlineFixtures {
    public static final String VALUE_V1 = """
            {"type":"record","name":"V","fields":[{"name":"user_id","type":["null","string"]},
             {"name":"amount","type":["null","double"]}]}""";
    public static final String VALUE_V2 = """
            {"type":"record","name":"V","fields":[{"name":"user_id","type":["null","string"]},
             {"name":"amount","type":["null","double"]},{"name":"tags","type":["null",{"type":"array","items":"string"}],"default":null},
             {"name":"country","type":["null","string"],"default":null}]}""";
    public static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

    private OnlineFixtures() {}

    public static PGSimpleDataSource database() {
        PGSimpleDataSource ds = new PGSimpleDataSource();
        ds.setUrl("jdbc:postgresql://127.0.0.1:5432/postgres?user=postgres");
        return ds;
    }

    public static String uniqueSchema() {
        return Api.unique("online_test").toLowerCase();
    }

    public static void dropSchema(javax.sql.DataSource ds, String schema) throws Exception {
        try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
            s.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
        }
    }

    public static Schema rowSchema(String valueSchema) {
        return new Schema.Parser().parse("""
                {"type":"record","name":"Row","namespace":"io.tributary.row","fields":[
                  {"name":"key","type":["null","string"]},
                  {"name":"value","type":["null",%s]},
                  {"name":"stream_record_timestamp","type":{"type":"long","logicalType":"timestamp-micros"}},
                  {"name":"record_source","type":"string"},
                  {"name":"kafka_topic","type":["null","string"]},
                  {"name":"kafka_partition","type":["null","int"]},
                  {"name":"kafka_offset","type":["null","long"]}
                ]}""".formatted(valueSchema));
    }

    /** A row of {@code user} with {@code amount} at T0 + {@code second}s; {@code user} may be null. */
    public static GenericRecord row(Schema rowSchema, long offset, String user, double amount, long second) {
        Schema valueSchema = rowSchema.getField("value").schema().getTypes().get(1);
        GenericRecord value = new GenericData.Record(valueSchema);
        value.put("user_id", user);
        value.put("amount", amount);
        GenericRecord r = new GenericData.Record(rowSchema);
        r.put("key", user);
        r.put("value", value);
        r.put("stream_record_timestamp", ChronoUnit.MICROS.between(Instant.EPOCH, T0.plusSeconds(second)));
        r.put("record_source", "stream");
        r.put("kafka_topic", "t");
        r.put("kafka_partition", 0);
        r.put("kafka_offset", offset);
        return r;
    }

    public static List<GenericRecord> rows(Schema rowSchema, long firstOffset, Object... userAmountSecond) {
        List<GenericRecord> out = new ArrayList<>();
        for (int i = 0; i < userAmountSecond.length; i += 3) {
            out.add(row(rowSchema, firstOffset + i / 3, (String) userAmountSecond[i],
                    ((Number) userAmountSecond[i + 1]).doubleValue(), ((Number) userAmountSecond[i + 2]).longValue()));
        }
        return out;
    }
}
