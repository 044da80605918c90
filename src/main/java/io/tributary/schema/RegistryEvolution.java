package io.tributary.schema;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Schema evolution of one registry-backed side. A message whose framing names a writer schema not seen before is
 * checked once: if that schema's column is this side's column plus nullable fields (a compatible version that adds
 * optional fields), the side is rebuilt on it, so the table gains those columns; any other writer schema is decoded
 * into the current column (Avro resolution, or Protobuf's tolerance of unknown and missing fields).
 */
final class RegistryEvolution {
    /** Built by {@link RegistrySchemaCompiler}: the side a writer schema defines, or null when it cannot. */
    interface Builder {
        CompiledSide build(RegistryClient.RegisteredSchema writer, String messageName);
    }

    private final RegistryClient client;
    private final SchemaSource.Registry source;
    private final String messageName;
    private final Builder builder;
    /** Writer ids (for Protobuf with the message indexes) already checked. */
    private final Set<String> checked;
    private CompiledSide side;

    RegistryEvolution(RegistryClient client, SchemaSource.Registry source, String messageName, Builder builder,
                      Set<String> checked) {
        this.client = client;
        this.source = source;
        this.messageName = messageName;
        this.builder = builder;
        this.checked = checked;
    }

    void attach(CompiledSide side) {
        this.side = side;
    }

    /** @throws SchemaRegistryUnavailableException when the writer schema cannot be fetched */
    Optional<CompiledSide> widenedFor(byte[] message) {
        if (message == null || message.length < ConfluentFraming.HEADER || message[0] != 0) {
            return Optional.empty();
        }
        String key = null;
        try {
            if (source.format() == RegistryFormat.FORMAT_PROTOBUF) {
                ConfluentFraming.ProtoFrame frame = ConfluentFraming.protobuf(message);
                key = frame.schemaId() + java.util.Arrays.toString(frame.indexes());
                if (!checked.add(key)) {
                    return Optional.empty();
                }
                RegistryClient.RegisteredSchema writer = RegistrySchemas.fetch(client, frame.schemaId());
                return widenTo(writer, "PROTOBUF".equals(writer.type())
                        ? ProtoFileParser.messageNameAt(writer.text(), frame.indexes()) : null);
            }
            int id = ConfluentFraming.schemaId(message);
            key = String.valueOf(id);
            if (!checked.add(key)) {
                return Optional.empty();
            }
            return widenTo(RegistrySchemas.fetch(client, id), null);
        } catch (SchemaRegistryUnavailableException e) {
            // Not checked after all: ask again once the registry answers.
            checked.remove(key);
            throw e;
        } catch (DecodeException | RuntimeException e) {
            // An unknown id or unreadable writer schema: the decoder reports the message as a decode failure.
            return Optional.empty();
        }
    }

    private Optional<CompiledSide> widenTo(RegistryClient.RegisteredSchema writer, String written) {
        boolean sameType = source.format() == RegistryFormat.FORMAT_AVRO ? "AVRO".equals(writer.type())
                : messageName.equals(written);
        if (!sameType || writer.hasReferences()) {
            return Optional.empty();
        }
        CompiledSide candidate;
        try {
            candidate = builder.build(writer, written);
        } catch (InvalidSchemaException e) {
            return Optional.empty();
        }
        return ColumnWidening.widens(side.columnSchema(), candidate.columnSchema()) ? Optional.of(candidate)
                : Optional.empty();
    }

    /** The subject's versions before the one this side was built from, newest first, each as a side. */
    List<CompiledSide> earlierVersions(int builtFrom) {
        List<Integer> versions;
        try {
            versions = client.versions(source.subject());
        } catch (SchemaRegistryException e) {
            if (e.kind() == SchemaRegistryException.Kind.UNAVAILABLE) {
                throw new SchemaRegistryUnavailableException(e.getMessage());
            }
            return List.of();
        }
        List<CompiledSide> out = new ArrayList<>();
        for (int i = versions.size() - 1; i >= 0; i--) {
            if (versions.get(i) >= builtFrom) {
                continue;
            }
            try {
                RegistryClient.RegisteredSchema older = client.version(source.subject(), versions.get(i));
                if (!older.hasReferences()) {
                    out.add(builder.build(older, messageName));
                }
            } catch (SchemaRegistryException e) {
                if (e.kind() == SchemaRegistryException.Kind.UNAVAILABLE) {
                    throw new SchemaRegistryUnavailableException(e.getMessage());
                }
            } catch (InvalidSchemaException e) {
                // A version this stream cannot use as its column; try the one before.
            }
        }
        return out;
    }
}
