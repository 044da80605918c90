package io.tributary.bench;

import com.fasterxml.jackson.databind.json.JsonMapper;
import io.tributary.delta.DeltaTable;
import io.tributary.delta.PartitionKey;
import io.tributary.delta.TableChanges;
import io.tributary.delta.Tables;
import io.tributary.features.Feature;
import io.tributary.features.FeatureState;
import io.tributary.features.FeatureStore;
import io.tributary.features.FeatureViewCompiler;
import io.tributary.features.FeatureViewDefinition;
import io.tributary.features.FeatureViewSpec;
import io.tributary.features.MaterializeHooks;
import io.tributary.features.MaterializeResult;
import io.tributary.features.Materializer;
import io.tributary.features.OfflineFeatures;
import io.tributary.ingest.MicroBatch;
import io.tributary.ingest.SourceRecord;
import io.tributary.ingest.StreamIngester;
import io.tributary.online.OnlineStore;
import io.tributary.schema.SchemaSource;
import io.tributary.schema.SideSchema;
import io.tributary.schema.StreamSchema;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.stream.Stream;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * First half of bench/features-spark (issue #16): writes an ingestion table through the real ingestion core, defines a
 * feature view over it with every function on every window kind, and materializes it with the real {@link Materializer}
 * (online state in a fresh database of the machine's PostgreSQL) in rounds as the server would: a first round over a
 * history already in the table (in parts of about 300 records), then rounds of one or several commits. Records arrive
 * out of order, within the allowed lateness, so none is dropped (the writer checks that; late records are the server
 * test's subject) and Spark's computation over the whole ingestion table must give exactly the offline table's final
 * windows.
 *
 * <p>Writes {@code <out>/table} (ingestion), {@code <out>/features} (offline feature table) and {@code <out>/view.json}
 * (the compiled windows in milliseconds, for the Spark side, which reads nothing else of Tributary's).
 */
public final class FeatureSparkCheckWriter {
    static final String TOPIC = "transactions";
    static final int PARTITIONS = 2;
    static final long BASE_MS = 1_767_225_600_000L; // 2026-01-01T00:00:00Z
    static final int BATCHES = 48;
    static final long BATCH_SPAN_MS = 90_000;
    static final String LATENESS = "2m";
    /** Out of order by up to this much, below the lateness, so that no record is dropped. */
    static final long JITTER_MS = 110_000;
    static final int USERS = 150;

    static final String VALUE_SCHEMA = """
            {"type":"record","name":"Tx","namespace":"bench","fields":[
              {"name":"user_id","type":["null","string"],"default":null},
              {"name":"region","type":"int"},
              {"name":"amount","type":["null","double"],"default":null},
              {"name":"merchant","type":"string"},
              {"name":"event_time","type":{"type":"long","logicalType":"timestamp-micros"}}]}
            """;

    private static final String[][] FUNCTIONS = {
        {"count_rows", "count", null}, {"count", "count", "value.amount"}, {"sum", "sum", "value.amount"},
        {"avg", "avg", "value.amount"}, {"min", "min", "value.amount"}, {"max", "max", "value.amount"},
        {"stddev", "stddev", "value.amount"}, {"first", "first", "value.amount"},
        {"last", "last", "value.merchant"}, {"distinct", "approx_count_distinct", "value.merchant"},
    };

    private FeatureSparkCheckWriter() {}

    public static void main(String[] args) throws Exception {
        Path out = Path.of(args[0]).toAbsolutePath().normalize();
        String pg = args.length > 1 ? args[1] : "127.0.0.1:5432";
        deleteRecursively(out);
        Files.createDirectories(out);
        String location = out.resolve("table").toString();
        String offlineLocation = out.resolve("features").toString();

        StreamSchema schema = StreamSchema.of(SideSchema.compile(new SchemaSource.Plain(), "key_schema"),
                SideSchema.compile(new SchemaSource.Avro(VALUE_SCHEMA), "payload_schema"));
        Tables tables = Tables.forWarehouse(out.toString(), Optional.empty());
        Map<PartitionKey, Long> start = new LinkedHashMap<>();
        for (int p = 0; p < PARTITIONS; p++) {
            start.put(new PartitionKey(TOPIC, p), 0L);
        }
        DeltaTable table = tables.create(location, schema.rowSchema(), start);
        StreamIngester ingester = new StreamIngester(table, schema);
        Schema avro = new Schema.Parser().parse(VALUE_SCHEMA);

        String db = "features_spark_check_" + Long.toHexString(System.nanoTime());
        String host = pg.substring(0, pg.indexOf(':'));
        int port = Integer.parseInt(pg.substring(pg.indexOf(':') + 1));
        admin(host, port, "CREATE DATABASE " + db);
        try {
            PGSimpleDataSource ds = new PGSimpleDataSource();
            ds.setServerNames(new String[] {host});
            ds.setPortNumbers(new int[] {port});
            ds.setDatabaseName(db);
            ds.setUser("postgres");
            FeatureStore store = new FeatureStore(new OnlineStore(ds, "tributary_online"));

            Random random = new Random(16);
            long[] offsets = new long[PARTITIONS];
            long records = 0;
            FeatureViewSpec spec = null;
            Materializer materializer = null;
            int rounds = 0;
            for (int b = 0; b < BATCHES; b++) {
                MicroBatch.Builder batch = MicroBatch.builder();
                int n = 2 * USERS + random.nextInt(40);
                for (int i = 0; i < n; i++) {
                    int p = i % PARTITIONS;
                    batch.add(record(avro, p, offsets[p]++, b, random, null));
                    records++;
                }
                // A hot entity with hundreds of distinct merchants a minute: its distinct counts are past the exact
                // range, in the HyperLogLog's.
                if (b >= 20 && b < 24) {
                    for (int i = 0; i < 900; i++) {
                        int p = i % PARTITIONS;
                        batch.add(record(avro, p, offsets[p]++, b, random, "hot"));
                        records++;
                    }
                }
                ingester.ingest(batch.build()).orElseThrow();
                if (b == 9) {
                    // The view is created over a history already in the table: the first round takes it as it is, in
                    // parts of about 300 records (whole files, in the order of their least event time).
                    try (TableChanges changes = tables.changesSince(location, -1)) {
                        spec = FeatureViewCompiler.compile("spark-check", "main.bench.features", location,
                                offlineLocation, "fv_spark_check", definition(), changes.columns());
                    }
                    store.register(spec);
                    new OfflineFeatures(tables).create(spec);
                    materializer = new Materializer(tables, store, MaterializeHooks.NONE, 300);
                }
                // Rounds of one commit and of several, as the server's coalesced rounds and catch-ups take them.
                if (materializer != null && (b < 30 ? true : b % 3 == 2 || b == BATCHES - 1)) {
                    MaterializeResult r;
                    do {
                        r = materializer.run(spec);
                        rounds++;
                    } while (r.more());
                }
            }
            FeatureState st = store.state(spec.id());
            if (st.lateDropped() != 0) {
                throw new IllegalStateException("the generator meant no record to be late, but "
                        + st.lateDropped() + " were dropped");
            }
            writeView(out.resolve("view.json"), spec, st, location, offlineLocation);
            System.out.printf("features-spark-check: %d records in %d commits, %d rounds; %d read, %d skipped "
                    + "(null entity), watermark %d; offline table %s (version %d)%n", records, BATCHES, rounds,
                    st.recordsRead(), st.skipped(), st.watermark(), offlineLocation,
                    tables.open(offlineLocation).status().version());
        } finally {
            admin(host, port, "DROP DATABASE IF EXISTS " + db + " WITH (FORCE)");
        }
    }

    static FeatureViewDefinition definition() {
        List<FeatureViewDefinition.FeatureDefinition> features = new ArrayList<>();
        Map<String, FeatureViewDefinition.WindowDefinition> windows = new LinkedHashMap<>();
        windows.put("t", new FeatureViewDefinition.WindowDefinition(
                new FeatureViewDefinition.Span("2m", null, null), null, null));
        windows.put("s", new FeatureViewDefinition.WindowDefinition(
                null, new FeatureViewDefinition.Span("5m", "1m", null), null));
        windows.put("r", new FeatureViewDefinition.WindowDefinition(
                null, null, new FeatureViewDefinition.Span("10m", null, "30s")));
        for (Map.Entry<String, FeatureViewDefinition.WindowDefinition> w : windows.entrySet()) {
            for (String[] f : FUNCTIONS) {
                features.add(new FeatureViewDefinition.FeatureDefinition(f[0] + "_" + w.getKey(), f[1], f[2],
                        w.getValue()));
            }
        }
        return new FeatureViewDefinition(List.of("value.user_id", "value.region"), "value.event_time", LATENESS,
                features);
    }

    private static SourceRecord record(Schema avro, int partition, long offset, int batch, Random random,
            String user) {
        long ts = BASE_MS + batch * BATCH_SPAN_MS + random.nextInt((int) BATCH_SPAN_MS)
                - (random.nextInt(4) == 0 ? random.nextInt((int) JITTER_MS) : 0);
        GenericData.Record rec = new GenericData.Record(avro);
        int u = random.nextInt(USERS);
        if (user == null) {
            // A null entity now and then: skipped, as Spark's side filters it.
            user = random.nextInt(60) == 0 ? null : String.format("u%03d", u);
        }
        rec.put("user_id", user);
        rec.put("region", user == null ? 0 : Math.floorMod(user.hashCode(), 3));
        // Cents, a null amount now and then (count of the column < count of rows; a window of nulls has null sums).
        rec.put("amount", random.nextInt(8) == 0 ? null : (random.nextInt(2_000_000) - 200_000) / 100.0);
        rec.put("merchant", "hot".equals(user) ? "m" + random.nextInt(5000) : "m" + random.nextInt(12));
        rec.put("event_time", ts * 1000);
        byte[] bytes = encode(avro, rec);
        return new SourceRecord(TOPIC, partition, offset, ts, null, bytes);
    }

    private static void writeView(Path file, FeatureViewSpec spec, FeatureState st, String table, String offline)
            throws IOException {
        List<Map<String, Object>> features = new ArrayList<>();
        for (Feature f : spec.features()) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("name", f.name());
            m.put("function", f.function().apiName());
            m.put("column", f.column() == null ? null : String.join(".", f.column()));
            m.put("kind", f.window().kind().name().toLowerCase());
            m.put("duration_ms", f.window().durationMs());
            m.put("slide_ms", f.window().slideMs());
            features.add(m);
        }
        Map<String, Object> view = new LinkedHashMap<>();
        view.put("table", table);
        view.put("offline_table", offline);
        view.put("entity_columns", spec.entityPaths().stream().map(p -> String.join(".", p)).toList());
        view.put("entity_names", spec.entityNames());
        view.put("timestamp_column", String.join(".", spec.timestampPath()));
        view.put("allowed_lateness_ms", spec.latenessMs());
        view.put("tributary_watermark_ms", st.watermark());
        view.put("features", features);
        Files.writeString(file, JsonMapper.builder().build().writerWithDefaultPrettyPrinter()
                .writeValueAsString(view), StandardCharsets.UTF_8);
    }

    private static void admin(String host, int port, String sql) throws SQLException {
        try (Connection c = DriverManager.getConnection("jdbc:postgresql://" + host + ":" + port + "/postgres",
                "postgres", ""); Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    private static byte[] encode(Schema schema, GenericData.Record rec) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(bytes, null);
        try {
            new GenericDatumWriter<GenericData.Record>(schema).write(rec, encoder);
            encoder.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    private static void deleteRecursively(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}
