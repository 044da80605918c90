package io.tributary.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.UUID;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.generic.GenericRecordBuilder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The rules of docs/schema-evolution.md for each kind of change a new registry version can make. */
class RegistryEvolutionTest {
    private static final String LOCATOR = "schema_config.schema_registry_config.payload_schema_locator";
    /** {@code note} has no default: a reader of v1 needs one to read writers that removed it. */
    private static final String V1 = """
            {"type":"record","name":"Tx","fields":[{"name":"id","type":"string"},
              {"name":"note","type":["null","string"]}]}""";
    private static final String REMOVED = """
            {"type":"record","name":"Tx","fields":[{"name":"id","type":"string"}]}""";
    private static final String RETYPED = """
            {"type":"record","name":"Tx","fields":[{"name":"id","type":"long"},
              {"name":"note","type":["null","string"],"default":null}]}""";
    private static final String REQUIRED_ADDED = """
            {"type":"record","name":"Tx","fields":[{"name":"id","type":"string"},
              {"name":"note","type":["null","string"],"default":null},{"name":"n","type":"int","default":0}]}""";
    private static final String OPTIONAL_ADDED = """
            {"type":"record","name":"Tx","fields":[{"name":"id","type":"string"},
              {"name":"note","type":["null","string"],"default":null},
              {"name":"extra","type":["null","long"],"default":null}]}""";

    private StubRegistry registry;
    private RegistryAccess access;

    @BeforeEach
    void start() throws Exception {
        registry = new StubRegistry();
        access = new RegistryAccess(registry.url(), "key", "secret-" + UUID.randomUUID());
    }

    @AfterEach
    void stop() {
        registry.close();
    }

    private SideSchema compile(String subject) {
        return SideSchema.compile(new SchemaSource.Registry(subject, RegistryFormat.FORMAT_AVRO, access), LOCATOR);
    }

    private static byte[] message(int id, String schemaText, Object... fields) throws Exception {
        Schema schema = new Schema.Parser().parse(schemaText);
        GenericRecordBuilder b = new GenericRecordBuilder(schema);
        for (int i = 0; i < fields.length; i += 2) {
            b.set((String) fields[i], fields[i + 1]);
        }
        return ConfluentFramingTest.avroFrame(id, AvroDecoderTest.encode(schema, b.build()));
    }

    @Test
    void aRemovedFieldStaysInTheColumnAndReadsNull() throws Exception {
        registry.register("s", "AVRO", V1);
        SideSchema side = compile("s");
        int removed = registry.register("s", "AVRO", REMOVED);
        byte[] m = message(removed, REMOVED, "id", "a");

        assertThat(side.widenedFor(m)).isEmpty();
        GenericRecord r = (GenericRecord) side.newDecoder().decode(m);
        assertThat(r.get("id")).isEqualTo("a");
        assertThat(r.get("note")).isNull();
    }

    @Test
    void aRetypedFieldDoesNotChangeTheColumnAndItsMessagesFailToDecode() throws Exception {
        registry.register("s", "AVRO", V1);
        SideSchema side = compile("s");
        int retyped = registry.register("s", "AVRO", RETYPED);
        byte[] m = message(retyped, RETYPED, "id", 7L);

        assertThat(side.widenedFor(m)).isEmpty();
        assertThatThrownBy(() -> side.newDecoder().decode(m)).isInstanceOf(DecodeException.class);
    }

    @Test
    void aNonNullableAddedFieldIsNotAColumnButItsMessagesDecode() throws Exception {
        registry.register("s", "AVRO", V1);
        SideSchema side = compile("s");
        int required = registry.register("s", "AVRO", REQUIRED_ADDED);
        byte[] m = message(required, REQUIRED_ADDED, "id", "b", "n", 3);

        assertThat(side.widenedFor(m)).isEmpty();
        assertThat(((GenericRecord) side.newDecoder().decode(m)).get("id")).isEqualTo("b");
    }

    @Test
    void anOptionalAddedFieldWidensTheColumnAndOlderMessagesReadNullThere() throws Exception {
        int v1 = registry.register("s", "AVRO", V1);
        SideSchema side = compile("s");
        int added = registry.register("s", "AVRO", OPTIONAL_ADDED);

        SideSchema wider = side.widenedFor(message(added, OPTIONAL_ADDED, "id", "c", "extra", 9L)).orElseThrow();
        assertThat(ColumnTypes.nonNull(wider.columnSchema()).getFields()).extracting(Schema.Field::name)
                .containsExactly("id", "note", "extra");
        Decoder decoder = wider.newDecoder();
        GenericRecord fresh = (GenericRecord) decoder.decode(message(added, OPTIONAL_ADDED, "id", "c", "extra", 9L));
        assertThat(fresh.get("extra")).isEqualTo(9L);
        GenericRecord old = (GenericRecord) decoder.decode(message(v1, V1, "id", "d", "note", "x"));
        assertThat(old.get("note")).isEqualTo("x");
        assertThat(old.get("extra")).isNull();
        // Checked once: the same writer id does not widen again.
        assertThat(wider.widenedFor(message(added, OPTIONAL_ADDED, "id", "e"))).isEmpty();
    }

    @Test
    void earlierVersionsAreOfferedNewestFirstForTablesTheLatestNoLongerCovers() {
        registry.register("s", "AVRO", V1);
        registry.register("s", "AVRO", OPTIONAL_ADDED);
        registry.register("s", "AVRO", REMOVED);
        List<SideSchema> earlier = compile("s").earlierVersions();
        assertThat(earlier).hasSize(2);
        assertThat(ColumnTypes.nonNull(earlier.get(0).columnSchema()).getFields()).extracting(Schema.Field::name)
                .containsExactly("id", "note", "extra");
        assertThat(ColumnTypes.nonNull(earlier.get(1).columnSchema()).getFields()).extracting(Schema.Field::name)
                .containsExactly("id", "note");
    }

    @Test
    void anUnreachableRegistryIsReportedNotGuessed() throws Exception {
        registry.register("s", "AVRO", V1);
        SideSchema side = compile("s");
        int added = registry.register("s", "AVRO", OPTIONAL_ADDED);
        registry.status = 503;
        assertThatThrownBy(() -> side.widenedFor(message(added, OPTIONAL_ADDED, "id", "f")))
                .isInstanceOf(SchemaRegistryUnavailableException.class)
                .hasMessageNotContaining(access.apiSecret());
    }
}
