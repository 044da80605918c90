package io.tributary.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.CodedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.net.URI;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.jar.JarFile;
import org.apache.avro.generic.GenericRecord;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The function zips leave out jars the schema libraries name but our schema paths never load (pom.xml,
 * {@code lambda.removed-artifacts}). Guava: wire-schema names it only in its pruning and linking code ({@code Pruner},
 * {@code Options.fields}, {@code ProtoFile.retainImports}); our parser uses wire's element parser alone
 * ({@code ProtoParser}). Jackson's YAML module and SnakeYAML: json-schema-validator reads YAML schemas only; ours and
 * its meta-schemas are JSON. This compiles a .proto schema, decodes a message with it, resolves a Confluent message
 * index and compiles (meta-validating) JSON Schemas of several dialects, in a class loader made of this test's class
 * path without those jars, so a path that still reached them fails with a NoClassDefFoundError.
 */
class SchemaParsersWithoutRemovedJarsTest {
    private static URLClassLoader withoutRemovedJars;

    @BeforeAll
    static void isolate() throws IOException {
        List<URL> urls = new ArrayList<>();
        for (String entry : classPath()) {
            String name = new File(entry).getName();
            if (!name.startsWith("guava-") && !name.startsWith("failureaccess-")
                    && !name.startsWith("jackson-dataformat-yaml-") && !name.startsWith("snakeyaml-")) {
                urls.add(new File(entry).toURI().toURL());
            }
        }
        withoutRemovedJars = new URLClassLoader(urls.toArray(URL[]::new), ClassLoader.getPlatformClassLoader());
    }

    @Test
    void theIsolatedClassLoaderHasNoneOfTheRemovedJars() {
        for (String name : List.of("com.google.common.collect.LinkedHashMultimap",
                "com.fasterxml.jackson.dataformat.yaml.YAMLMapper", "org.yaml.snakeyaml.Yaml")) {
            assertThatThrownBy(() -> Class.forName(name, true, withoutRemovedJars)).as(name)
                    .isInstanceOf(ClassNotFoundException.class);
        }
    }

    @Test
    void compilesAndDecodesProtobufWithoutGuava() throws Exception {
        assertThat(call("decodeEvent")).isEqualTo("Ann/[a, b]/GREEN");
    }

    @Test
    void resolvesMessageIndexesWithoutGuava() throws Exception {
        assertThat(call("nestedMessageName")).isEqualTo("com.example.Event.Inner");
    }

    @Test
    void compilesAndMetaValidatesJsonSchemasWithoutYaml() throws Exception {
        assertThat(call("compileJsonSchemas")).isEqualTo("valid/invalid: is not a valid JSON Schema");
    }

    private static Object call(String method) throws Exception {
        Class<?> proto = Class.forName(Proto.class.getName(), true, withoutRemovedJars);
        assertThat(proto.getClassLoader()).isSameAs(withoutRemovedJars);
        try {
            return proto.getMethod(method).invoke(null);
        } catch (InvocationTargetException e) {
            throw e.getCause() instanceof Exception ex ? ex : new RuntimeException(e.getCause());
        }
    }

    /** Runs inside the isolated class loader. */
    public static final class Proto {
        private Proto() {}

        public static String decodeEvent() throws Exception {
            SideSchema side = SideSchema.compile(new SchemaSource.Protobuf(ProtoMappingTest.EVENT,
                    "com.example.Event"), "payload_schema");
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            CodedOutputStream out = CodedOutputStream.newInstance(bytes);
            out.writeEnum(14, 1);
            ByteArrayOutputStream customer = new ByteArrayOutputStream();
            CodedOutputStream c = CodedOutputStream.newInstance(customer);
            c.writeString(1, "Ann");
            c.flush();
            out.writeByteArray(15, customer.toByteArray());
            out.writeString(16, "a");
            out.writeString(16, "b");
            out.flush();
            GenericRecord r = (GenericRecord) side.newDecoder().decode(bytes.toByteArray());
            return ((GenericRecord) r.get("customer")).get("name") + "/" + r.get("tags") + "/" + r.get("color");
        }

        /** A 2020-12 and a draft-04 schema compile; one with a bad type is rejected by the meta-schema. */
        public static String compileJsonSchemas() {
            SideSchema.compile(new SchemaSource.JsonSchema(
                    "{\"type\": \"object\", \"properties\": {\"at\": {\"type\": \"string\", "
                            + "\"format\": \"date-time\"}}}"), "payload_schema");
            SideSchema.compile(new SchemaSource.JsonSchema("{\"$schema\": \"http://json-schema.org/draft-04/schema#\", "
                    + "\"type\": \"number\", \"minimum\": 1, \"exclusiveMinimum\": true}"), "payload_schema");
            try {
                SideSchema.compile(new SchemaSource.JsonSchema("{\"type\": \"strin\"}"), "payload_schema");
                return "valid/accepted";
            } catch (InvalidSchemaException e) {
                return "valid/invalid: " + e.getMessage().substring(0, e.getMessage().indexOf(" (")).trim();
            }
        }

        public static String nestedMessageName() {
            return ProtoFileParser.messageNameAt("""
                syntax = "proto3";
                package com.example;
                message Event { message Inner { string s = 1; } Inner inner = 1; }
                """, new int[] {0, 0});
        }
    }

    private static List<String> classPath() throws IOException {
        List<String> out = new ArrayList<>();
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            out.add(entry);
            if (entry.endsWith(".jar") && new File(entry).getName().startsWith("surefirebooter")) {
                try (JarFile jar = new JarFile(entry)) {
                    String cp = jar.getManifest().getMainAttributes().getValue("Class-Path");
                    for (String u : cp == null ? new String[0] : cp.trim().split("\\s+")) {
                        out.add(Path.of(URI.create(new File(entry).toURI().resolve(u).toString())).toString());
                    }
                }
            }
        }
        return out;
    }
}
