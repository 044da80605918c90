package io.tributary.ingest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tributary.delta.PartitionKey;
import io.tributary.delta.Tables;
import io.tributary.schema.InvalidSchemaException;
import io.tributary.schema.RegistryAccess;
import io.tributary.schema.RegistryFormat;
import io.tributary.schema.SchemaSource;
import io.tributary.schema.SideSchema;
import io.tributary.schema.StreamSchema;
import io.tributary.schema.StubRegistry;
import io.tributary.testing.KafkaTestSupport;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A registry subject changed under an existing stream in a way its column cannot follow: a registry with
 * compatibility NONE accepts a schema of another format (or a recursive record, or one with references) as the
 * subject's latest version. The running pipeline decodes such messages to NULL (counted); a pipeline that opens the
 * stream afterwards (a restart, another server, the ingest function) must do the same, not fail for ever.
 */
class RegistrySubjectChangeTest {
    static final String V1 = """
            {"type":"record","name":"Tx","namespace":"ex","fields":[
              {"name":"id","type":"long"},{"name":"name","type":"string"}]}""";
    static final String PROTO = "syntax = \"proto3\";\npackage ex;\nmessage Tx {\n  string id = 1;\n}\n";

    @TempDir
    Path dir;

    @Test
    void aPipelineOpensWithTheNewestUsableVersionWhenTheLatestCannotBeTheColumn() throws Exception {
        try (StubRegistry registry = new StubRegistry()) {
            int v1 = registry.register("tx-value", "AVRO", V1);
            SchemaSource value = new SchemaSource.Registry("tx-value", RegistryFormat.FORMAT_AVRO,
                    new RegistryAccess(registry.url(), null, null));
            Tables tables = Tables.forWarehouse(dir.resolve("wh").toString(), Optional.empty());
            String location = tables.defaultLocation("main", "t", "tx_ingestion");
            StreamSchema schema = StreamSchema.of(SideSchema.compile(new SchemaSource.Plain(), "k"),
                    SideSchema.compile(value, "schema_config.payload_schema"));
            tables.create(location, schema.rowSchema(), Map.of(new PartitionKey("t", 0), 0L));
            PipelineSpec spec = new PipelineSpec("id-tx", "main.t.tx", location,
                    new Subscription.Topics(List.of("t")), Map.of(), new SchemaSource.Plain(), value, Instant.now());

            // Someone registers a Protobuf schema under the Avro subject (compatibility NONE lets it in).
            int proto = registry.register("tx-value", "PROTOBUF", PROTO);
            // A create still refuses the subject as it is now.
            assertThatThrownBy(() -> SideSchema.compile(value, "schema_config.payload_schema"))
                    .isInstanceOf(InvalidSchemaException.class).hasMessageContaining("PROTOBUF");

            OpenedIngester opened = OpenedIngester.open(tables, spec);
            MicroBatch batch = MicroBatch.builder()
                    .add(new SourceRecord("t", 0, 0, 1_700_000_000_000L, null, avroFrame(v1, 7, "seven")))
                    .add(new SourceRecord("t", 0, 1, 1_700_000_000_001L, null, new byte[] {0, 0, 0, 0, (byte) proto, 0}))
                    .build();
            CommitResult result = opened.ingester().ingest(batch).orElseThrow();
            assertThat(result.rows()).isEqualTo(2);
            assertThat(result.decodeFailures()).isEqualTo(1);
            List<Map<String, Object>> rows = KafkaTestSupport.rows(tables, location);
            assertThat(rows).extracting(r -> r.get("value"))
                    .containsExactly(Map.of("id", 7L, "name", "seven"), null);
        }
    }

    private static byte[] avroFrame(int id, long txId, String name) throws Exception {
        Schema schema = new Schema.Parser().parse(V1);
        GenericRecord r = new GenericData.Record(schema);
        r.put("id", txId);
        r.put("name", name);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(0);
        out.write(ByteBuffer.allocate(4).putInt(id).array());
        BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(out, null);
        new GenericDatumWriter<GenericRecord>(schema).write(r, encoder);
        encoder.flush();
        return out.toByteArray();
    }
}
