package io.tributary.schema;

import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.FileDescriptor;
import java.net.URI;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.apache.avro.Schema;

/**
 * A registry subject to a column (SPEC 4.2): the subject must exist and resolve now, its registered type must match
 * the declared format, and JSON is refused with a hint to declare it inline. The fetched version pins the column
 * (see {@link SideSchema#pinnedSource()}); decoders read each message with the writer schema its framing names and
 * resolve it to that column. For Protobuf the column is the file's first message, the one Confluent's serializers
 * register a message type under.
 */
final class RegistrySchemaCompiler {
    private RegistrySchemaCompiler() {}

    /** @param field the request path of the locator, e.g. {@code schema_config.schema_registry_config.payload_schema_locator} */
    static CompiledSide compile(SchemaSource.Registry source, String field, String recordPrefix) {
        String subjectField = field + ".confluent_schema.subject";
        String formatField = field + ".format";
        if (source.subject() == null || source.subject().isBlank()) {
            throw new InvalidSchemaException(subjectField, "is missing; name the registry subject, e.g. `tx-value`");
        }
        if (source.format() == null) {
            throw new InvalidSchemaException(formatField, "is missing; use FORMAT_AVRO or FORMAT_PROTOBUF");
        }
        if (source.access() == null || !isHttpUrl(source.access().url())) {
            throw new InvalidSchemaException(field, "needs the schema registry URL of the connection, as an http(s)"
                    + " URL; set it on the connection");
        }
        RegistryClient client = RegistryClient.shared(source.access());
        RegistryClient.RegisteredSchema registered;
        try {
            registered = client.version(source.subject(), source.version());
        } catch (SchemaRegistryException e) {
            String target = e.kind() == SchemaRegistryException.Kind.UNAUTHORIZED ? secretField(field) : subjectField;
            String fix = switch (e.kind()) {
                case NOT_FOUND -> "; register the schema first or correct the subject name";
                case UNAUTHORIZED -> "";
                case UNAVAILABLE, BAD_RESPONSE -> "; the subject must resolve when the stream is created, so retry"
                        + " once the registry is reachable";
            };
            // A pipeline compiling at (re)start must retry rather than report a bad schema: the cause says so.
            throw e.kind() == SchemaRegistryException.Kind.UNAVAILABLE
                    ? new InvalidSchemaException(target, e.getMessage() + fix,
                            new SchemaRegistryUnavailableException(e.getMessage()))
                    : new InvalidSchemaException(target, e.getMessage() + fix);
        }
        if ("JSON".equals(registered.type())) {
            throw new InvalidSchemaException(subjectField, "subject `" + source.subject() + "` holds a JSON Schema;"
                    + " JSON is not read through a registry, so declare the schema inline under"
                    + " schema_config.direct_schemas (json_schema) instead");
        }
        String expected = source.format() == RegistryFormat.FORMAT_AVRO ? "AVRO" : "PROTOBUF";
        if (!expected.equals(registered.type())) {
            throw new InvalidSchemaException(formatField, "is " + source.format() + " but subject `"
                    + source.subject() + "` holds a " + registered.type() + " schema; set the format to FORMAT_"
                    + registered.type() + " or point at the right subject");
        }
        if (registered.hasReferences()) {
            throw new InvalidSchemaException(subjectField, "subject `" + source.subject() + "` version "
                    + registered.version() + " references other subjects, which is not supported; register a"
                    + " self-contained schema");
        }
        SchemaSource.Registry pinned = new SchemaSource.Registry(source.subject(), source.format(), source.access(),
                registered.version());
        return build(pinned, client, registered, subjectField, recordPrefix);
    }

    /**
     * For a pipeline (re)opening a stream that exists: the subject's latest version, or, when the latest cannot be
     * the stream's column (a schema of another format, or JSON, registered under the subject, one with references,
     * a recursive record: a registry with compatibility NONE accepts anything), the newest earlier version that can.
     * A stream's table keeps being written as before, and the new version's messages decode to NULL (counted), as
     * they do for a pipeline that was already running; without this, every start failed for ever on a schema the
     * stream never used. A create still refuses such a latest version ({@link #compile}). An unreachable registry,
     * a pinned version and a subject with no usable version fail as {@link #compile} does.
     */
    static CompiledSide compileNewestUsable(SchemaSource.Registry source, String field, String recordPrefix) {
        try {
            return compile(source, field, recordPrefix);
        } catch (InvalidSchemaException latest) {
            if (source.version() != null || latest.getCause() instanceof SchemaRegistryUnavailableException
                    || source.access() == null || !isHttpUrl(source.access().url())) {
                throw latest;
            }
            java.util.List<Integer> versions;
            try {
                versions = RegistryClient.shared(source.access()).versions(source.subject());
            } catch (SchemaRegistryException e) {
                throw latest;
            }
            for (int i = versions.size() - 1; i >= 0; i--) {
                try {
                    return compile(new SchemaSource.Registry(source.subject(), source.format(), source.access(),
                            versions.get(i)), field, recordPrefix);
                } catch (InvalidSchemaException e) {
                    if (e.getCause() instanceof SchemaRegistryUnavailableException) {
                        throw e;
                    }
                }
            }
            throw latest;
        }
    }

    private static CompiledSide build(SchemaSource.Registry pinned, RegistryClient client,
                                      RegistryClient.RegisteredSchema registered, String subjectField,
                                      String recordPrefix) {
        return build(pinned, client, registered, null, subjectField, recordPrefix, ConcurrentHashMap.newKeySet());
    }

    /**
     * @param messageName the Protobuf message that is the column (null: the file's first message)
     * @param checked     writer ids already checked for widening, shared along a chain of widened sides
     */
    private static CompiledSide build(SchemaSource.Registry pinned, RegistryClient client,
                                      RegistryClient.RegisteredSchema registered, String messageName,
                                      String subjectField, String recordPrefix, Set<String> checked) {
        RecordNames names = new RecordNames(recordPrefix);
        Function<String, CompiledSide> rebuild = prefix -> build(pinned, client, registered, messageName,
                subjectField, prefix, checked);
        // Problems of the registered text are reported on the subject, which is what the user can change.
        String what = subjectField;
        CompiledSide side;
        RegistryEvolution evolution;
        if (pinned.format() == RegistryFormat.FORMAT_AVRO) {
            Schema reader = AvroSchemaCompiler.parse(registered.text(), what);
            AvroTypeMapper.Mapped mapped = new AvroTypeMapper(what, names).map(reader);
            evolution = new RegistryEvolution(client, pinned, null, (writer, name) -> build(pinned, client, writer,
                    null, subjectField, recordPrefix, checked), checked);
            side = new CompiledSide(pinned, recordPrefix, mapped.type(),
                    () -> new RegistryAvroDecoder(client, reader, mapped.reader()), rebuild, evolution,
                    registered.version());
        } else {
            FileDescriptor file = ProtoFileParser.parse(registered.text(), what);
            if (file.getMessageTypes().isEmpty()) {
                throw new InvalidSchemaException(what, "the registered Protobuf schema declares no message");
            }
            Descriptor message = messageName == null ? file.getMessageTypes().get(0) : find(file, messageName);
            if (message == null) {
                throw new InvalidSchemaException(what, "the registered Protobuf schema has no message "
                        + messageName);
            }
            ProtoTypeMapper.Mapped mapped = new ProtoTypeMapper(what, names).map(message);
            evolution = new RegistryEvolution(client, pinned, message.getFullName(), (writer, name) -> build(pinned,
                    client, writer, name, subjectField, recordPrefix, checked), checked);
            ProtoWireReader.Plan plan = new ProtoWireReader.Plan(message, mapped.type());
            side = new CompiledSide(pinned, recordPrefix, mapped.type(),
                    () -> new RegistryProtoDecoder(client, message, mapped.converter(), plan), rebuild, evolution,
                    registered.version());
        }
        evolution.attach(side);
        return side;
    }

    private static Descriptor find(FileDescriptor file, String fullName) {
        for (Descriptor d : file.getMessageTypes()) {
            if (d.getFullName().equals(fullName)) {
                return d;
            }
            for (Descriptor nested : d.getNestedTypes()) {
                if (nested.getFullName().equals(fullName)) {
                    return nested;
                }
            }
        }
        return null;
    }

    private static String secretField(String locatorField) {
        int dot = locatorField.lastIndexOf('.');
        return (dot < 0 ? "" : locatorField.substring(0, dot + 1)) + "api_secret_ref";
    }

    private static boolean isHttpUrl(String url) {
        if (url == null || url.isBlank()) {
            return false;
        }
        try {
            URI u = URI.create(url.trim());
            return ("http".equals(u.getScheme()) || "https".equals(u.getScheme())) && u.getHost() != null;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }
}
