package io.tributary.schema;

import static io.tributary.schema.TestSchemas.avro;
import static io.tributary.schema.TestSchemas.proto;
import static io.tributary.schema.TestSchemas.rejected;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ProtoMappingTest {
    static final String EVENT = """
        syntax = "proto3";
        package com.example;

        import "google/protobuf/timestamp.proto";
        import "google/protobuf/wrappers.proto";

        message Event {
          int32 i32 = 1;
          sint32 s32 = 2;
          sfixed32 sf32 = 3;
          int64 i64 = 4;
          sint64 s64 = 5;
          sfixed64 sf64 = 6;
          uint32 u32 = 7;
          uint64 u64 = 8;
          float f = 9;
          double d = 10;
          bool b = 11;
          string s = 12;
          bytes raw = 13;
          Color color = 14;
          Customer customer = 15;
          repeated string tags = 16;
          map<string, int64> counts = 17;
          google.protobuf.Timestamp at = 18;
          google.protobuf.StringValue note = 19;
          google.protobuf.UInt64Value big = 20;
          oneof payment {
            string card = 21;
            Customer payer = 22;
          }
          optional int32 maybe = 23;
          repeated Customer history = 24;
          map<string, Customer> by_id = 25;

          enum Color { RED = 0; GREEN = 1; }
        }

        message Customer {
          string name = 1;
        }
        """;

    @Test
    void mapsEveryProtobufTypeToItsColumnType() {
        SideSchema side = proto(EVENT, "com.example.Event");
        assertThat(side.columnSchema()).isEqualTo(avro("""
            ["null", {"type": "record", "name": "payload_schema", "fields": [
              {"name": "i32", "type": ["null", "int"], "default": null},
              {"name": "s32", "type": ["null", "int"], "default": null},
              {"name": "sf32", "type": ["null", "int"], "default": null},
              {"name": "i64", "type": ["null", "long"], "default": null},
              {"name": "s64", "type": ["null", "long"], "default": null},
              {"name": "sf64", "type": ["null", "long"], "default": null},
              {"name": "u32", "type": ["null", "long"], "default": null},
              {"name": "u64", "type": ["null", {"type": "bytes", "logicalType": "decimal", "precision": 20,
                  "scale": 0}], "default": null},
              {"name": "f", "type": ["null", "float"], "default": null},
              {"name": "d", "type": ["null", "double"], "default": null},
              {"name": "b", "type": ["null", "boolean"], "default": null},
              {"name": "s", "type": ["null", "string"], "default": null},
              {"name": "raw", "type": ["null", "bytes"], "default": null},
              {"name": "color", "type": ["null", "string"], "default": null},
              {"name": "customer", "type": ["null", {"type": "record", "name": "payload_schema_customer", "fields": [
                  {"name": "name", "type": ["null", "string"], "default": null}]}], "default": null},
              {"name": "tags", "type": ["null", {"type": "array", "items": "string"}], "default": null},
              {"name": "counts", "type": ["null", {"type": "map", "values": "long"}], "default": null},
              {"name": "at", "type": ["null", {"type": "long", "logicalType": "timestamp-micros"}], "default": null},
              {"name": "note", "type": ["null", "string"], "default": null},
              {"name": "big", "type": ["null", {"type": "bytes", "logicalType": "decimal", "precision": 20,
                  "scale": 0}], "default": null},
              {"name": "card", "type": ["null", "string"], "default": null},
              {"name": "payer", "type": ["null", {"type": "record", "name": "payload_schema_payer", "fields": [
                  {"name": "name", "type": ["null", "string"], "default": null}]}], "default": null},
              {"name": "maybe", "type": ["null", "int"], "default": null},
              {"name": "history", "type": ["null", {"type": "array", "items": {"type": "record",
                  "name": "payload_schema_history", "fields": [
                  {"name": "name", "type": ["null", "string"], "default": null}]}}], "default": null},
              {"name": "by_id", "type": ["null", {"type": "map", "values": {"type": "record",
                  "name": "payload_schema_by_id", "fields": [
                  {"name": "name", "type": ["null", "string"], "default": null}]}}], "default": null}
            ]}]"""));
    }

    @Test
    void proto2WithNestedMessageAndNoPackage() {
        SideSchema side = proto("""
            syntax = "proto2";
            message Outer {
              required string id = 1;
              optional Inner inner = 2;
              message Inner { optional uint32 n = 1 [default = 5]; }
            }
            """, "Outer.Inner");
        assertThat(side.columnSchema()).isEqualTo(avro("""
            ["null", {"type": "record", "name": "payload_schema", "fields": [
              {"name": "n", "type": ["null", "long"], "default": null}]}]"""));
    }

    @Test
    void syntaxDefaultsToProto2() {
        assertThat(proto("message A { optional int32 x = 1; }", "A").columnSchema())
                .isEqualTo(avro("""
                    ["null", {"type": "record", "name": "payload_schema", "fields": [
                      {"name": "x", "type": ["null", "int"], "default": null}]}]"""));
    }

    @Test
    void rejectsTextThatDoesNotParse() {
        InvalidSchemaException e = rejected(new SchemaSource.Protobuf(
                "syntax = \"proto3\"; message A { int32 x = 1 }", "A"));
        assertThat(e.field()).isEqualTo(TestSchemas.SIDE + ".proto_schema.schema_text");
        assertThat(e.getMessage()).contains("not a valid .proto file", "1:");
        assertThat(rejected(new SchemaSource.Protobuf("", "A")).field())
                .isEqualTo(TestSchemas.SIDE + ".proto_schema.schema_text");
    }

    @Test
    void rejectsUndefinedTypes() {
        InvalidSchemaException e = rejected(new SchemaSource.Protobuf(
                "syntax = \"proto3\"; message A { B b = 1; }", "A"));
        assertThat(e.field()).isEqualTo(TestSchemas.SIDE + ".proto_schema.schema_text");
        assertThat(e.getMessage()).contains("\"B\" is not defined");
    }

    @Test
    void messageNameMustBeQualifiedWithThePackage() {
        InvalidSchemaException e = rejected(new SchemaSource.Protobuf(EVENT, "Event"));
        assertThat(e.field()).isEqualTo(TestSchemas.SIDE + ".proto_schema.message_name");
        assertThat(e.getMessage()).contains("not fully qualified", "`com.example`", "`com.example.Event`");
    }

    @Test
    void messageNameMustExist() {
        InvalidSchemaException e = rejected(new SchemaSource.Protobuf(EVENT, "com.example.Nope"));
        assertThat(e.field()).isEqualTo(TestSchemas.SIDE + ".proto_schema.message_name");
        assertThat(e.getMessage()).contains("not a message", "com.example.Event", "com.example.Customer");
        assertThat(rejected(new SchemaSource.Protobuf(EVENT, "com.example.Event.Color")).field())
                .isEqualTo(TestSchemas.SIDE + ".proto_schema.message_name");
        assertThat(rejected(new SchemaSource.Protobuf(EVENT, "com.example.Event.CountsEntry")).field())
                .isEqualTo(TestSchemas.SIDE + ".proto_schema.message_name");
        assertThat(rejected(new SchemaSource.Protobuf(EVENT, " ")).getMessage()).contains("missing");
    }

    @Test
    void rejectsImportsOtherThanTimestampAndWrappers() {
        InvalidSchemaException other = rejected(new SchemaSource.Protobuf(
                "syntax = \"proto3\"; import \"other/common.proto\"; message A { int32 x = 1; }", "A"));
        assertThat(other.field()).isEqualTo(TestSchemas.SIDE + ".proto_schema.schema_text");
        assertThat(other.getMessage()).contains("other/common.proto", "self-contained");
        InvalidSchemaException publicImport = rejected(new SchemaSource.Protobuf(
                "syntax = \"proto3\"; import public \"other/common.proto\"; message A { int32 x = 1; }", "A"));
        assertThat(publicImport.getMessage()).contains("other/common.proto");
    }

    @Test
    void rejectsOtherWellKnownTypes() {
        for (String[] wkt : new String[][] {{"duration", "Duration"}, {"struct", "Struct"}, {"any", "Any"},
                {"empty", "Empty"}, {"field_mask", "FieldMask"}}) {
            InvalidSchemaException e = rejected(new SchemaSource.Protobuf("syntax = \"proto3\"; import"
                    + " \"google/protobuf/" + wkt[0] + ".proto\"; message A { google.protobuf." + wkt[1]
                    + " x = 1; }", "A"));
            assertThat(e.getMessage()).as(wkt[1]).contains("google/protobuf/" + wkt[0] + ".proto", "well-known",
                    "timestamp.proto");
        }
    }

    @Test
    void rejectsWellKnownTypesDeclaredInTheText() {
        InvalidSchemaException e = rejected(new SchemaSource.Protobuf("""
            syntax = "proto3";
            package google.protobuf;
            message Duration { int64 seconds = 1; int32 nanos = 2; }
            message A { Duration d = 1; }
            """, "google.protobuf.A"));
        assertThat(e.getMessage()).contains("google.protobuf.Duration", "well-known");
    }

    @Test
    void rejectsFixed32AndFixed64() {
        InvalidSchemaException f32 = rejected(new SchemaSource.Protobuf(
                "syntax = \"proto3\"; message A { string id = 1; fixed32 n = 2; }", "A"));
        assertThat(f32.field()).isEqualTo(TestSchemas.SIDE + ".proto_schema.schema_text");
        assertThat(f32.getMessage()).contains("`n`", "fixed32", "sfixed32");
        InvalidSchemaException f64 = rejected(new SchemaSource.Protobuf(
                "syntax = \"proto3\"; message A { B b = 1; } message B { repeated fixed64 n = 1; }", "A"));
        assertThat(f64.getMessage()).contains("`b.n`", "fixed64");
        InvalidSchemaException inMap = rejected(new SchemaSource.Protobuf(
                "syntax = \"proto3\"; message A { map<string, fixed32> m = 1; }", "A"));
        assertThat(inMap.getMessage()).contains("fixed32");
    }

    @Test
    void rejectsMapsWithNonStringKeys() {
        InvalidSchemaException e = rejected(new SchemaSource.Protobuf(
                "syntax = \"proto3\"; message A { map<int32, string> by_number = 1; }", "A"));
        assertThat(e.getMessage()).contains("`by_number`", "int32 keys", "map<string, V>");
    }

    @Test
    void rejectsRecursiveMessages() {
        InvalidSchemaException direct = rejected(new SchemaSource.Protobuf(
                "syntax = \"proto3\"; message Node { int32 v = 1; Node next = 2; }", "Node"));
        assertThat(direct.getMessage()).contains("Node", "recursive", "next");
        InvalidSchemaException indirect = rejected(new SchemaSource.Protobuf("""
            syntax = "proto3";
            message A { B b = 1; }
            message B { map<string, A> back = 1; }
            """, "A"));
        assertThat(indirect.getMessage()).contains("recursive", "b.back");
    }

    @Test
    void rejectsGroups() {
        InvalidSchemaException e = rejected(new SchemaSource.Protobuf(
                "syntax = \"proto2\"; message A { optional group G = 1 { optional int32 x = 2; } }", "A"));
        assertThat(e.getMessage()).contains("group");
    }

    @Test
    void rejectsFieldlessMessagesUsedAsColumns() {
        InvalidSchemaException e = rejected(new SchemaSource.Protobuf(
                "syntax = \"proto3\"; message A { int32 x = 1; Marker m = 2; } message Marker {}", "A"));
        assertThat(e.getMessage()).contains("Marker", "no fields");
    }

    @Test
    void onlyTheChosenMessageIsChecked() {
        // An unsupported field in a message that does not become a column does not block the stream.
        assertThat(proto("syntax = \"proto3\"; message A { int32 x = 1; } message Other { fixed32 f = 1; }", "A")
                .columnSchema()).isNotNull();
    }
}
