package io.tributary.schema;

import java.nio.charset.StandardCharsets;

/**
 * A by-hand throughput check of the JSON hot path (not a unit test: timings on a shared machine are noise).
 * Run after {@code ./mvnw -o -q test-compile}:
 * {@code java -cp target/classes:target/test-classes:$(cat cp.txt) io.tributary.schema.JsonDecodeThroughput}
 * with cp.txt from {@code ./mvnw -o -q dependency:build-classpath -Dmdep.outputFile=cp.txt}.
 */
public final class JsonDecodeThroughput {
    private JsonDecodeThroughput() {}

    public static void main(String[] args) throws Exception {
        SideSchema side = SideSchema.compile(new SchemaSource.JsonSchema("""
            {"type": "object", "properties": {
              "transaction_id": {"type": "string"}, "account": {"type": "string"},
              "amount": {"type": "number"}, "currency": {"type": "string"}, "count": {"type": "integer"},
              "approved": {"type": "boolean"}, "at": {"type": "string", "format": "date-time"}}}"""),
                "payload_schema");
        byte[][] records = new byte[1024][];
        for (int i = 0; i < records.length; i++) {
            records[i] = ("{\"transaction_id\":\"tx-" + (1_000_000 + i) + "\",\"account\":\"acct-" + (i % 97)
                    + "\",\"amount\":" + (i * 1.25) + ",\"currency\":\"EUR\",\"count\":" + i
                    + ",\"approved\":true,\"at\":\"2024-05-06T07:08:09.123Z\"}").getBytes(StandardCharsets.UTF_8);
        }
        System.out.println("record size: " + records[500].length + " B");
        Decoder decoder = side.newDecoder();
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 3_000_000;
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
