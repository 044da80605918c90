package io.tributary.schema;

import java.nio.charset.StandardCharsets;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericRecordBuilder;

/**
 * A by-hand throughput check of the decoding hot path (not a unit test: timings on a shared machine are noise).
 * After {@code ./mvnw -o -q test-compile dependency:build-classpath -Dmdep.outputFile=target/cp.txt}:
 * {@code java -cp target/classes:target/test-classes:$(cat target/cp.txt) io.tributary.schema.DecodeThroughput
 * json|avro|proto [records]}. The records are small (~130 B as JSON) transactions.
 */
public final class DecodeThroughput {
    private static final String JSON_SCHEMA = """
        {"type": "object", "properties": {
          "transaction_id": {"type": "string"}, "account": {"type": "string"},
          "amount": {"type": "number"}, "currency": {"type": "string"}, "count": {"type": "integer"},
          "approved": {"type": "boolean"}, "at": {"type": "string", "format": "date-time"}}}""";
    private static final String AVRO_SCHEMA = """
        {"type": "record", "name": "Tx", "fields": [
          {"name": "transaction_id", "type": "string"}, {"name": "account", "type": "string"},
          {"name": "amount", "type": "double"}, {"name": "currency", "type": "string"},
          {"name": "count", "type": "long"}, {"name": "approved", "type": "boolean"},
          {"name": "at", "type": {"type": "long", "logicalType": "timestamp-micros"}}]}""";
    private static final String PROTO_SCHEMA = """
        syntax = "proto3";
        package bench;
        import "google/protobuf/timestamp.proto";
        message Tx { string transaction_id = 1; string account = 2; double amount = 3; string currency = 4;
                     int64 count = 5; bool approved = 6; google.protobuf.Timestamp at = 7; }
        """;

    private DecodeThroughput() {}

    public static void main(String[] args) throws Exception {
        String format = args.length > 0 ? args[0] : "json";
        int n = args.length > 1 ? Integer.parseInt(args[1]) : 3_000_000;
        byte[][] records = new byte[1024][];
        SideSchema side;
        switch (format) {
            case "json" -> {
                side = SideSchema.compile(new SchemaSource.JsonSchema(JSON_SCHEMA), "payload_schema");
                for (int i = 0; i < records.length; i++) {
                    records[i] = ("{\"transaction_id\":\"tx-" + (1_000_000 + i) + "\",\"account\":\"acct-"
                            + (i % 97) + "\",\"amount\":" + (i * 1.25) + ",\"currency\":\"EUR\",\"count\":" + i
                            + ",\"approved\":true,\"at\":\"2024-05-06T07:08:09.123Z\"}")
                            .getBytes(StandardCharsets.UTF_8);
                }
            }
            case "avro" -> {
                side = SideSchema.compile(new SchemaSource.Avro(AVRO_SCHEMA), "payload_schema");
                Schema schema = new Schema.Parser().parse(AVRO_SCHEMA);
                for (int i = 0; i < records.length; i++) {
                    records[i] = AvroDecoderTest.encode(schema, new GenericRecordBuilder(schema)
                            .set("transaction_id", "tx-" + (1_000_000 + i)).set("account", "acct-" + (i % 97))
                            .set("amount", i * 1.25).set("currency", "EUR").set("count", (long) i)
                            .set("approved", true).set("at", 1_714_979_289_123_000L).build());
                }
            }
            case "proto" -> {
                side = SideSchema.compile(new SchemaSource.Protobuf(PROTO_SCHEMA, "bench.Tx"), "payload_schema");
                for (int i = 0; i < records.length; i++) {
                    int k = i;
                    records[i] = ProtoDecoderTest.message(o -> {
                        o.writeString(1, "tx-" + (1_000_000 + k));
                        o.writeString(2, "acct-" + (k % 97));
                        o.writeDouble(3, k * 1.25);
                        o.writeString(4, "EUR");
                        o.writeInt64(5, k);
                        o.writeBool(6, true);
                        o.writeMessage(7, com.google.protobuf.Timestamp.newBuilder().setSeconds(1_714_979_289L)
                                .setNanos(123_000_000).build());
                    });
                }
            }
            default -> throw new IllegalArgumentException("json, avro or proto");
        }
        System.out.println(format + " record size: " + records[500].length + " B");
        Decoder decoder = side.newDecoder();
        for (int round = 0; round < 5; round++) {
            long start = System.nanoTime();
            long sink = 0;
            for (int i = 0; i < n; i++) {
                sink += decoder.decode(records[i & 1023]) != null ? 1 : 0;
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            System.out.printf("round %d: %.0f records/s (%d)%n", round, n / seconds, sink);
        }
    }
}
