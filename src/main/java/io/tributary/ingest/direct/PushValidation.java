package io.tributary.ingest.direct;

import io.tributary.schema.DecodeException;
import io.tributary.schema.Decoder;
import io.tributary.schema.SchemaSource;
import io.tributary.schema.SideSchema;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * Refuses a pushed record whose key or value its stream's schema cannot decode, for a stream that keeps no rescued
 * records (SPEC 11.2). From Kafka such a side can only become a NULL, its bytes gone; a producer that pushes still
 * holds the record and can be told, with nothing written. With {@code rescue_undecodable} the record is taken as from
 * Kafka: NULL, counted, its bytes kept in {@code _rescued_data}.
 *
 * <p>Registry-backed sides are left to the writer: it follows new subject versions as records name them, which a
 * decoder compiled here from the version known now would refuse.
 */
final class PushValidation {
    static final PushValidation NONE = new PushValidation(null, null);

    private final Side key;
    private final Side value;

    private PushValidation(Side key, Side value) {
        this.key = key;
        this.value = value;
    }

    static PushValidation of(SchemaSource key, SchemaSource value, boolean rescue) {
        if (rescue) {
            return NONE;
        }
        return new PushValidation(Side.of(key, "key", "schema_config.key_schema"),
                Side.of(value, "value", "schema_config.payload_schema"));
    }

    /** @throws MalformedPushException naming {@code records[i].key} or {@code records[i].value} */
    void check(Push push) {
        if (key == null && value == null) {
            return;
        }
        List<Push.Record> records = push.records();
        for (int i = 0; i < records.size(); i++) {
            Push.Record r = records.get(i);
            if (key != null) {
                key.check(i, r.key());
            }
            if (value != null) {
                value.check(i, r.value());
            }
        }
    }

    /** One side's schema, compiled on first use, and a pool of its decoders (a decoder serves one thread at a time). */
    private static final class Side {
        private final SchemaSource source;
        private final String name;
        private final String field;
        private final ConcurrentLinkedQueue<Decoder> idle = new ConcurrentLinkedQueue<>();
        private volatile SideSchema schema;

        private Side(SchemaSource source, String name, String field) {
            this.source = source;
            this.name = name;
            this.field = field;
        }

        static Side of(SchemaSource source, String name, String field) {
            // A side without a schema is text and never fails (invalid UTF-8 becomes U+FFFD): nothing to check.
            return source == null || source instanceof SchemaSource.Registry || source instanceof SchemaSource.Plain
                    ? null : new Side(source, name, field);
        }

        void check(int index, byte[] bytes) {
            if (bytes == null) {
                return;
            }
            Decoder decoder = idle.poll();
            if (decoder == null) {
                decoder = schema().newDecoder();
            }
            try {
                decoder.decode(bytes);
            } catch (DecodeException e) {
                throw new MalformedPushException("records[" + index + "]." + name, "does not match the stream's "
                        + name + " schema: " + e.getMessage() + "; nothing was written. Send the " + name + " as "
                        + "the schema describes it, or create the stream with ingestion_config.rescue_undecodable "
                        + "to take such records as Kafka's are taken (a NULL " + name + ", its bytes kept in "
                        + "_rescued_data)");
            } finally {
                idle.offer(decoder);
            }
        }

        private SideSchema schema() {
            SideSchema s = schema;
            if (s == null) {
                s = SideSchema.compileExisting(source, field);
                schema = s;
            }
            return s;
        }
    }
}
