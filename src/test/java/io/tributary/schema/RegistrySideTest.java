package io.tributary.schema;

import static io.tributary.schema.TestSchemas.avro;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.google.protobuf.CodedOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.UUID;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.generic.GenericRecordBuilder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class RegistrySideTest {
    private static final String LOCATOR = "schema_config.schema_registry_config.payload_schema_locator";
    private static final String V1 = """
        {"type": "record", "name": "Tx", "namespace": "com.example", "fields": [
          {"name": "id", "type": "string"}]}""";
    private static final String V2 = """
        {"type": "record", "name": "Tx", "namespace": "com.example", "fields": [
          {"name": "id", "type": "string"},
          {"name": "amount", "type": ["null", "double"], "default": null}]}""";
    private static final String PROTO_V1 = """
        syntax = "proto3";
        package com.example;
        message Tx { string id = 1; }
        message Other { int32 n = 1; }
        """;
    private static final String PROTO_V2 = """
        syntax = "proto3";
        package com.example;
        message Tx { string id = 1; int64 cents = 2; }
        message Other { int32 n = 1; }
        """;

    private StubRegistry registry;
    private RegistryAccess access;
    private String subject;

    @BeforeEach
    void start() throws Exception {
        registry = new StubRegistry();
        // A fresh secret per test keeps the shared client (and its id cache) per test.
        access = new RegistryAccess(registry.url(), "key", "s3cret-" + UUID.randomUUID());
        subject = "tx-value";
    }

    @AfterEach
    void stop() {
        registry.close();
    }

    private SideSchema compile(RegistryFormat format) {
        return SideSchema.compile(new SchemaSource.Registry(subject, format, access), LOCATOR);
    }

    private InvalidSchemaException rejected(RegistryFormat format) {
        InvalidSchemaException e = catchThrowableOfType(InvalidSchemaException.class, () -> compile(format));
        assertThat(e).isNotNull();
        assertThat(e.getMessage()).doesNotContain(access.apiSecret());
        return e;
    }

    private static byte[] avroBytes(String schemaText, GenericRecord record) throws Exception {
        return AvroDecoderTest.encode(avro(schemaText), record);
    }

    @Test
    void avroColumnComesFromTheLatestVersionAndMessagesResolveFromTheirWriterSchema() throws Exception {
        int v1 = registry.register(subject, "AVRO", V1);
        int v2 = registry.register(subject, "AVRO", V2);
        SideSchema side = compile(RegistryFormat.FORMAT_AVRO);

        assertThat(side.columnSchema()).isEqualTo(avro("""
            ["null", {"type": "record", "name": "payload_schema_locator", "fields": [
              {"name": "id", "type": "string"},
              {"name": "amount", "type": ["null", "double"], "default": null}]}]"""));
        assertThat(side.pinnedSource()).contains(new SchemaSource.Registry(subject, RegistryFormat.FORMAT_AVRO,
                access, 2));
        assertThat(registry.authorizations).allMatch(a -> a.equals("Basic " + Base64.getEncoder()
                .encodeToString(("key:" + access.apiSecret()).getBytes(StandardCharsets.UTF_8))));

        Decoder decoder = side.newDecoder();
        Schema s1 = avro(V1);
        Schema s2 = avro(V2);
        GenericRecord old = (GenericRecord) decoder.decode(ConfluentFramingTest.avroFrame(v1,
                avroBytes(V1, new GenericRecordBuilder(s1).set("id", "a").build())));
        assertThat(old.get("id")).isEqualTo("a");
        assertThat(old.get("amount")).isNull();
        GenericRecord current = (GenericRecord) decoder.decode(ConfluentFramingTest.avroFrame(v2,
                avroBytes(V2, new GenericRecordBuilder(s2).set("id", "b").set("amount", 2.5).build())));
        assertThat(current.get("amount")).isEqualTo(2.5);

        // A version registered after the stream was created is picked up by its id, without recompiling.
        String v3Text = V2.replace("]}", ", {\"name\": \"note\", \"type\": \"string\", \"default\": \"\"}]}");
        int v3 = registry.register(subject, "AVRO", v3Text);
        GenericRecord newer = (GenericRecord) decoder.decode(ConfluentFramingTest.avroFrame(v3, avroBytes(v3Text,
                new GenericRecordBuilder(avro(v3Text)).set("id", "c").set("amount", 1.0).set("note", "n").build())));
        assertThat(newer.get("id")).isEqualTo("c");
        assertThat(newer.getSchema().getFields()).hasSize(2);

        int before = registry.requests.size();
        decoder.decode(ConfluentFramingTest.avroFrame(v1, avroBytes(V1, new GenericRecordBuilder(s1).set("id", "d")
                .build())));
        side.newDecoder().decode(ConfluentFramingTest.avroFrame(v1, avroBytes(V1,
                new GenericRecordBuilder(s1).set("id", "e").build())));
        assertThat(registry.requests).hasSize(before);
    }

    @Test
    void pinnedVersionKeepsTheColumnWhenNewVersionsAppear() {
        registry.register(subject, "AVRO", V1);
        registry.register(subject, "AVRO", V2);
        SideSchema pinned = SideSchema.compile(new SchemaSource.Registry(subject, RegistryFormat.FORMAT_AVRO,
                access, 1), LOCATOR);
        assertThat(pinned.columnSchema().getTypes().get(1).getFields()).hasSize(1);
    }

    @Test
    void avroMessagesThatDoNotDecodeFail() throws Exception {
        int v1 = registry.register(subject, "AVRO", V1);
        Decoder decoder = compile(RegistryFormat.FORMAT_AVRO).newDecoder();
        assertThatThrownBy(() -> decoder.decode(new byte[] {1, 2, 3})).isInstanceOf(DecodeException.class);
        assertThatThrownBy(() -> decoder.decode(ConfluentFramingTest.avroFrame(999, new byte[] {2, 'a'})))
                .isInstanceOf(DecodeException.class).hasMessageContaining("999");
        int proto = registry.register("other", "PROTOBUF", PROTO_V1);
        assertThatThrownBy(() -> decoder.decode(ConfluentFramingTest.avroFrame(proto, new byte[] {2, 'a'})))
                .isInstanceOf(DecodeException.class).hasMessageContaining("not Avro");
        int incompatible = registry.register("other", "AVRO", "{\"type\": \"record\", \"name\": \"Tx\","
                + " \"namespace\": \"com.example\", \"fields\": [{\"name\": \"x\", \"type\": \"int\"}]}");
        assertThatThrownBy(() -> decoder.decode(ConfluentFramingTest.avroFrame(incompatible, new byte[] {2})))
                .isInstanceOf(DecodeException.class);
        assertThat(decoder.decode(ConfluentFramingTest.avroFrame(v1, new byte[] {2, 'a'})).toString())
                .contains("\"a\"");
    }

    @Test
    void unreachableRegistryWhileDecodingIsNotADecodeFailure() throws Exception {
        registry.register(subject, "AVRO", V1);
        Decoder decoder = compile(RegistryFormat.FORMAT_AVRO).newDecoder();
        registry.status = 503;
        assertThatThrownBy(() -> decoder.decode(ConfluentFramingTest.avroFrame(12345, new byte[] {2, 'a'})))
                .isInstanceOf(SchemaRegistryUnavailableException.class)
                .hasMessageNotContaining(access.apiSecret());
    }

    @Test
    void protobufColumnIsTheFirstMessageAndFramesSelectTheWrittenMessage() throws Exception {
        registry.register(subject, "PROTOBUF", PROTO_V1);
        int v2 = registry.register(subject, "PROTOBUF", PROTO_V2);
        SideSchema side = compile(RegistryFormat.FORMAT_PROTOBUF);
        assertThat(side.columnSchema()).isEqualTo(avro("""
            ["null", {"type": "record", "name": "payload_schema_locator", "fields": [
              {"name": "id", "type": ["null", "string"], "default": null},
              {"name": "cents", "type": ["null", "long"], "default": null}]}]"""));
        Decoder decoder = side.newDecoder();
        byte[] tx = ProtoDecoderTest.message(o -> {
            o.writeString(1, "t1");
            o.writeInt64(2, 250L);
        });
        GenericRecord r = (GenericRecord) decoder.decode(ConfluentFramingTest.protobufFrame(v2, new int[] {0}, tx));
        assertThat(r.get("id")).isEqualTo("t1");
        assertThat(r.get("cents")).isEqualTo(250L);
        // Same bytes framed as the second message of the file: another type, so a decode failure.
        assertThatThrownBy(() -> decoder.decode(ConfluentFramingTest.protobufFrame(v2, new int[] {1}, tx)))
                .isInstanceOf(DecodeException.class).hasMessageContaining("com.example.Other");
        assertThatThrownBy(() -> decoder.decode(ConfluentFramingTest.protobufFrame(v2, new int[] {5}, tx)))
                .isInstanceOf(DecodeException.class);
    }

    @Test
    void protobufFromAnOlderWriterVersionDecodes() throws Exception {
        int v1 = registry.register(subject, "PROTOBUF", PROTO_V1);
        registry.register(subject, "PROTOBUF", PROTO_V2);
        Decoder decoder = compile(RegistryFormat.FORMAT_PROTOBUF).newDecoder();
        byte[] old = ProtoDecoderTest.message(o -> o.writeString(1, "old"));
        GenericRecord r = (GenericRecord) decoder.decode(ConfluentFramingTest.protobufFrame(v1, new int[] {0}, old));
        assertThat(r.get("id")).isEqualTo("old");
        assertThat(r.get("cents")).isNull();
    }

    @Test
    void nestedMessageIndexesNameNestedTypes() throws Exception {
        String text = """
            syntax = "proto3";
            package p;
            message Outer { message Inner { string s = 1; } Inner inner = 1; }
            """;
        int id = registry.register(subject, "PROTOBUF", text);
        Decoder decoder = compile(RegistryFormat.FORMAT_PROTOBUF).newDecoder();
        assertThatThrownBy(() -> decoder.decode(ConfluentFramingTest.protobufFrame(id, new int[] {0, 0},
                new byte[0]))).isInstanceOf(DecodeException.class).hasMessageContaining("p.Outer.Inner");
        assertThat(decoder.decode(ConfluentFramingTest.protobufFrame(id, new int[] {0}, new byte[0]))).isNotNull();
    }

    @Test
    void rejectsASubjectThatDoesNotExist() {
        InvalidSchemaException e = rejected(RegistryFormat.FORMAT_AVRO);
        assertThat(e.field()).isEqualTo(LOCATOR + ".confluent_schema.subject");
        assertThat(e.getMessage()).contains("tx-value", "does not exist", "register");
    }

    @Test
    void rejectsAFormatThatDoesNotMatchTheRegisteredType() {
        registry.register(subject, "PROTOBUF", PROTO_V1);
        InvalidSchemaException e = rejected(RegistryFormat.FORMAT_AVRO);
        assertThat(e.field()).isEqualTo(LOCATOR + ".format");
        assertThat(e.getMessage()).contains("FORMAT_PROTOBUF");

        subject = "avro-subject";
        registry.register(subject, "AVRO", V1);
        assertThat(rejected(RegistryFormat.FORMAT_PROTOBUF).field()).isEqualTo(LOCATOR + ".format");
    }

    @Test
    void rejectsJsonWithAHintToDeclareItInline() {
        registry.register(subject, "JSON", "{\"type\": \"object\"}");
        InvalidSchemaException e = rejected(RegistryFormat.FORMAT_AVRO);
        assertThat(e.field()).isEqualTo(LOCATOR + ".confluent_schema.subject");
        assertThat(e.getMessage()).contains("JSON", "inline", "direct_schemas");
    }

    @Test
    void rejectsSchemasWithReferences() {
        registry.register(subject, "AVRO", V1, true);
        assertThat(rejected(RegistryFormat.FORMAT_AVRO).getMessage()).contains("references");
    }

    @Test
    void registeredSchemasFollowTheInlineRules() {
        registry.register(subject, "PROTOBUF", "syntax = \"proto3\"; message A { fixed32 f = 1; }");
        InvalidSchemaException e = rejected(RegistryFormat.FORMAT_PROTOBUF);
        assertThat(e.field()).isEqualTo(LOCATOR + ".confluent_schema.subject");
        assertThat(e.getMessage()).contains("fixed32");
    }

    @Test
    void rejectedCredentialsNameTheSecretFieldWithoutTheSecret() {
        registry.register(subject, "AVRO", V1);
        registry.requiredAuthorization = "Basic something-else";
        InvalidSchemaException e = rejected(RegistryFormat.FORMAT_AVRO);
        assertThat(e.field()).isEqualTo("schema_config.schema_registry_config.api_secret_ref");
        assertThat(e.getMessage()).contains("401", "credentials");
    }

    @Test
    void unreachableRegistryAtCreateNamesTheRegistryWithoutCredentials() throws Exception {
        int port;
        try (java.net.ServerSocket s = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        access = new RegistryAccess("http://user:pa55word@127.0.0.1:" + port + "/api?token=t0ken", "key",
                "s3cret-" + UUID.randomUUID());
        InvalidSchemaException e = rejected(RegistryFormat.FORMAT_AVRO);
        assertThat(e.field()).isEqualTo(LOCATOR + ".confluent_schema.subject");
        assertThat(e.getMessage()).contains("127.0.0.1:" + port, "cannot reach")
                .doesNotContain("pa55word", "t0ken", access.apiSecret());
    }

    @Test
    void rejectsAMissingSubjectFormatOrUrl() {
        assertThat(catchThrowableOfType(InvalidSchemaException.class, () -> SideSchema.compile(
                new SchemaSource.Registry(" ", RegistryFormat.FORMAT_AVRO, access), LOCATOR)).field())
                .isEqualTo(LOCATOR + ".confluent_schema.subject");
        assertThat(catchThrowableOfType(InvalidSchemaException.class, () -> SideSchema.compile(
                new SchemaSource.Registry("s", null, access), LOCATOR)).field()).isEqualTo(LOCATOR + ".format");
        assertThat(catchThrowableOfType(InvalidSchemaException.class, () -> SideSchema.compile(
                new SchemaSource.Registry("s", RegistryFormat.FORMAT_AVRO,
                        new RegistryAccess("not a url", null, null)), LOCATOR)).getMessage()).contains("URL");
    }

    @Test
    void clientRetriesTransientFailures() throws Exception {
        registry.register(subject, "AVRO", V1);
        registry.failuresToServe.set(2);
        SideSchema side = compile(RegistryFormat.FORMAT_AVRO);
        assertThat(side.columnSchema()).isNotNull();
        assertThat(registry.requests).hasSize(3);
    }

    @Test
    void clientGivesUpAfterItsAttemptsAndTimesOut() {
        registry.register(subject, "AVRO", V1);
        registry.delayMillis = 1_000;
        RegistryClient client = new RegistryClient(access, Duration.ofMillis(500), Duration.ofMillis(200), 2,
                Duration.ofMillis(10));
        SchemaRegistryException e = catchThrowableOfType(SchemaRegistryException.class, () -> client.version(subject, null));
        assertThat(e.kind()).isEqualTo(SchemaRegistryException.Kind.UNAVAILABLE);
        assertThat(e.getMessage()).contains("after 2 attempts", "Timeout");
    }

    @Test
    void clientDoesNotRetryClientErrors() {
        registry.status = 422;
        RegistryClient client = new RegistryClient(access, Duration.ofSeconds(1), Duration.ofSeconds(1), 3,
                Duration.ofMillis(10));
        SchemaRegistryException e = catchThrowableOfType(SchemaRegistryException.class, () -> client.byId(1));
        assertThat(e.kind()).isEqualTo(SchemaRegistryException.Kind.BAD_RESPONSE);
        assertThat(registry.requests).hasSize(1);
    }

    @Test
    void subjectNamesAreEscapedInThePath() throws Exception {
        subject = "team a/tx value";
        registry.register(subject, "AVRO", V1);
        compile(RegistryFormat.FORMAT_AVRO);
        assertThat(registry.requests.get(0)).isEqualTo("/subjects/team%20a%2Ftx%20value/versions/latest");
    }

    @Test
    void keyAndValueFromOneRegistryGetDistinctRecordNames() {
        registry.register("tx-key", "AVRO", V1);
        registry.register("tx-value", "AVRO", V1);
        SideSchema key = SideSchema.compile(new SchemaSource.Registry("tx-key", RegistryFormat.FORMAT_AVRO, access),
                "schema_config.schema_registry_config.key_schema_locator");
        SideSchema value = SideSchema.compile(new SchemaSource.Registry("tx-value", RegistryFormat.FORMAT_AVRO,
                access), "schema_config.schema_registry_config.key_schema_locator");
        int requests = registry.requests.size();
        StreamSchema stream = StreamSchema.of(key, value);
        assertThat(stream.rowSchema().getField("key").schema().getTypes().get(1).getName()).isEqualTo("key");
        assertThat(stream.rowSchema().getField("value").schema().getTypes().get(1).getName()).isEqualTo("value");
        // Rebuilt from the schemas already fetched, not from whatever is latest now.
        assertThat(registry.requests).hasSize(requests);
    }

    @Test
    void protobufWriterVersionsMayUseTypesTheStreamDoesNotRead() throws Exception {
        registry.register(subject, "PROTOBUF", PROTO_V1);
        Decoder decoder = compile(RegistryFormat.FORMAT_PROTOBUF).newDecoder();
        int newer = registry.register(subject, "PROTOBUF", """
            syntax = "proto3";
            package com.example;
            import "google/protobuf/duration.proto";
            message Tx { string id = 1; google.protobuf.Duration took = 3; }
            """);
        byte[] tx = ProtoDecoderTest.message(o -> {
            o.writeString(1, "t2");
            o.writeMessage(3, com.google.protobuf.Duration.newBuilder().setSeconds(5).build());
        });
        GenericRecord r = (GenericRecord) decoder.decode(ConfluentFramingTest.protobufFrame(newer, new int[] {0}, tx));
        assertThat(r.get("id")).isEqualTo("t2");
    }
}
