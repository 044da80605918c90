package io.tributary.sparkcheck;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.MapType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import scala.jdk.javaapi.CollectionConverters;

/**
 * Second half of bench/spark-check: reads the table SparkCheckTableWriter wrote with Spark + delta-spark and compares
 * it, row for row and order-insensitively, with the writer's expected.jsonl, and checks the schema Spark sees.
 * Rows become JSON in the shape the writer documents: struct fields in column order, map keys sorted, decimals as plain
 * strings, timestamps as {@link Instant#toString()}, dates as {@link LocalDate#toString()}.
 */
public final class ReadAndCompare {

    /** SPEC 4's seven columns with the writer's Avro value mapped by SPEC 4.1. */
    private static final String EXPECTED_SCHEMA = "struct<key:string,"
            + "value:struct<id:bigint,customer:struct<name:string,tier:int>,lines:array<struct<sku:string,qty:int>>,"
            + "attrs:map<string,bigint>,amount:decimal(12,2),created:timestamp,day:date>,"
            + "stream_record_timestamp:timestamp,record_source:string,kafka_topic:string,kafka_partition:int,"
            + "kafka_offset:bigint>";
    private static final int SHOWN_DIFFERENCES = 5;
    private static final ObjectMapper JSON = new ObjectMapper();

    private ReadAndCompare() {}

    public static void main(String[] args) throws IOException {
        Path dir = Path.of(args[0]).toAbsolutePath().normalize();
        List<String> expected = Files.readAllLines(dir.resolve("expected.jsonl"), StandardCharsets.UTF_8);
        SparkSession spark = SparkSession.builder()
                .master("local[1]")
                .appName("tributary-spark-check")
                .config("spark.sql.extensions", "io.delta.sql.DeltaSparkSessionExtension")
                .config("spark.sql.catalog.spark_catalog", "org.apache.spark.sql.delta.catalog.DeltaCatalog")
                .config("spark.sql.session.timeZone", "UTC")
                // Instant and LocalDate instead of java.sql types: no local-time-zone shifts in the comparison.
                .config("spark.sql.datetime.java8API.enabled", "true")
                .config("spark.sql.shuffle.partitions", "1")
                .config("spark.ui.enabled", "false")
                .getOrCreate();
        String path = dir.resolve("table").toString();
        boolean failed = false;
        try {
            // Spark has two Parquet readers with separate decoding code; a table must read right with both.
            for (String vectorized : List.of("false", "true")) {
                spark.conf().set("spark.sql.parquet.enableVectorizedReader", vectorized);
                String reader = "true".equals(vectorized) ? "vectorized Parquet reader (Spark's default)"
                        : "row-based Parquet reader";
                failed |= !check(spark, path, expected, reader);
            }
        } finally {
            spark.stop();
        }
        System.exit(failed ? 1 : 0);
    }

    /** Prints the outcome for one reader; true when rows and schema match. */
    private static boolean check(SparkSession spark, String path, List<String> expected, String reader)
            throws IOException {
        List<String> problems = new ArrayList<>();
        List<String> actual = new ArrayList<>();
        long version;
        try {
            var df = spark.read().format("delta").load(path);
            StructType schema = df.schema();
            if (!schema.simpleString().equals(EXPECTED_SCHEMA)) {
                problems.add("schema differs:\n  expected " + EXPECTED_SCHEMA + "\n  spark    " + schema.simpleString());
            }
            for (StructField f : schema.fields()) {
                if (!f.nullable()) {
                    problems.add("column " + f.name() + " is NOT NULL; SPEC 4 makes every column nullable");
                }
            }
            for (Row row : df.collectAsList()) {
                actual.add(JSON.writeValueAsString(struct(row, schema)));
            }
            version = io.delta.tables.DeltaTable.forPath(spark, path).history(1).first().getLong(0);
        } catch (Exception e) { // SparkException is checked but thrown from Scala without a declaration
            Throwable root = e;
            while (root.getCause() != null) {
                root = root.getCause();
            }
            System.out.println("spark-check [" + reader + "]: FAILED, Spark could not read the table: " + root);
            for (StackTraceElement frame : root.getStackTrace()) {
                if (frame.getClassName().contains("parquet")) {
                    System.out.println("    at " + frame);
                }
            }
            return false;
        }
        compareRows(expected, actual, problems);
        if (!problems.isEmpty()) {
            System.out.println("spark-check [" + reader + "]: MISMATCH");
            problems.forEach(p -> System.out.println("  " + p));
            return false;
        }
        System.out.printf("spark-check [%s]: %d rows match, schema matches (table version %d)%n", reader,
                actual.size(), version);
        return true;
    }

    private static void compareRows(List<String> expected, List<String> actual, List<String> problems) {
        Map<String, Integer> counts = new HashMap<>();
        expected.forEach(e -> counts.merge(e, 1, Integer::sum));
        actual.forEach(a -> counts.merge(a, -1, Integer::sum));
        List<String> missing = new ArrayList<>();
        List<String> unexpected = new ArrayList<>();
        counts.forEach((row, n) -> {
            for (int i = 0; i < Math.abs(n); i++) {
                (n > 0 ? missing : unexpected).add(row);
            }
        });
        if (expected.size() != actual.size()) {
            problems.add("expected " + expected.size() + " rows, Spark read " + actual.size());
        }
        missing.stream().sorted().limit(SHOWN_DIFFERENCES).forEach(r -> problems.add("expected, not read: " + r));
        unexpected.stream().sorted().limit(SHOWN_DIFFERENCES).forEach(r -> problems.add("read, not expected: " + r));
        if (missing.size() + unexpected.size() > 2 * SHOWN_DIFFERENCES) {
            problems.add("(" + missing.size() + " expected rows not read, " + unexpected.size()
                    + " read rows not expected in all)");
        }
    }

    private static Map<String, Object> struct(Row row, StructType type) {
        Map<String, Object> out = new LinkedHashMap<>();
        StructField[] fields = type.fields();
        for (int i = 0; i < fields.length; i++) {
            out.put(fields[i].name(), value(row.get(i), fields[i].dataType()));
        }
        return out;
    }

    private static Object value(Object v, DataType type) {
        if (v == null) {
            return null;
        }
        if (type instanceof StructType s) {
            return struct((Row) v, s);
        }
        if (type instanceof ArrayType a) {
            List<Object> out = new ArrayList<>();
            for (Object e : CollectionConverters.asJava((scala.collection.Seq<?>) v)) {
                out.add(value(e, a.elementType()));
            }
            return out;
        }
        if (type instanceof MapType m) {
            Map<String, Object> out = new TreeMap<>();
            CollectionConverters.asJava((scala.collection.Map<?, ?>) v)
                    .forEach((k, e) -> out.put(String.valueOf(k), value(e, m.valueType())));
            return out;
        }
        if (v instanceof BigDecimal d) {
            return d.toPlainString();
        }
        if (v instanceof Instant || v instanceof LocalDate) {
            return v.toString();
        }
        return v;
    }
}
