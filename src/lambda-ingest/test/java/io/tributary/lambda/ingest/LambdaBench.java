package io.tributary.lambda.ingest;

import io.tributary.lambda.PackagedFunction;
import io.tributary.lambda.RegistryRows;
import io.tributary.lambda.RuntimeApi;
import io.restassured.path.json.JsonPath;
import io.tributary.delta.PartitionKey;
import io.tributary.delta.Tables;
import io.tributary.testing.TributaryServices;
import java.io.IOException;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The cold-start bench of bench/lambda/run.sh (not a test: no *Test or *IT name). Each function's packaged JVM
 * function.zip is started as a process the way Lambda's java runtime starts it ({@link PackagedFunction}:
 * {@code AWS_LAMBDA_RUNTIME_API} pointing at a {@link RuntimeApi} served here, the settings a deployment passes as
 * environment variables) with its first event already queued; the
 * cold start is the time from starting the process to receiving the function's answer to that event. The baseline,
 * measured the same way in the same run, is a trivial JVM program that polls the runtime API and answers
 * ({@link Hello}). For ingest the bench then times warm invocations of a 6 MB MSK batch (6 partitions, 24,960 records
 * of ~200 bytes, 5.9 MB of event JSON) on the same process.
 *
 * <p>Arguments: {@code <rounds> <function>=<build dir> ...} (the build dir holds the function.zip, started as
 * {@link PackagedFunction} starts it for the integration tests). System properties: {@code bench.jvm-options} (extra
 * JVM options of the function process, e.g. an AppCDS archive), {@code bench.appcds-dir} (train a dynamic AppCDS
 * archive per function there first: one run with {@code -XX:ArchiveClassesAtExit}, then every round with
 * {@code -XX:SharedArchiveFile}), {@code bench.log-dir} (function logs).
 */
public final class LambdaBench {
    static final String INGEST_ARN = "arn:aws:lambda:eu-west-1:123456789012:function:tributary-ingest";
    static final int PARTITIONS = 6;
    // 6 x 4,160 records of ~200 bytes: a 5.9 MB event, under Lambda's 6 MB invocation payload limit.
    static final int RECORDS = 24_960;
    static final Duration TIMEOUT = Duration.ofMinutes(3);
    // Issue 11's goals on this machine: JVM-mode cold start to the first answer, and a warm 6 MB batch.
    static final long COLD_GOAL_MS = 2_000;
    static final long WARM_GOAL_MS = 1_000;

    private final Map<String, String> config;
    private final Path logs;
    private int ingestRound;
    private RegistryRows.Registered ingestStream;

    private LambdaBench(Map<String, String> config, Path logs) {
        this.config = config;
        this.logs = logs;
    }

    public static void main(String[] args) {
        try {
            bench(args);
        } catch (Throwable e) {
            // The embedded services' threads would keep a failed bench running.
            System.out.println("FAILED: " + e);
            e.printStackTrace();
            System.exit(1);
        }
        System.exit(0);
    }

    private static void bench(String[] args) throws Exception {
        int rounds = Integer.parseInt(args[0]);
        Path logs = Files.createDirectories(Path.of(System.getProperty("bench.log-dir", "/tmp/tributary-lambda-bench")));
        Map<String, String> config = new HashMap<>(new TributaryServices().start());
        config.put("tributary.aws.ingest-function-arn", INGEST_ARN);
        config.put("tributary.aws.ingest-batch-size", "10000");
        config.put("tributary.aws.ingest-max-batching-window-seconds", "1");
        config.put("tributary.aws.kafka-secret-prefix", "tributary/kafka/");
        config.put("tributary.aws.kafka-secrets-kms-key-arn", "arn:aws:kms:eu-west-1:123456789012:key/k");
        config.put("tributary.aws.kafka-subnet-ids", "subnet-a");
        config.put("tributary.aws.kafka-security-group-id", "sg-f");
        config.put("AWS_REGION", "eu-west-1");
        config.put("AWS_ACCESS_KEY_ID", "bench");
        config.put("AWS_SECRET_ACCESS_KEY", "bench");
        LambdaBench bench = new LambdaBench(config, logs);
        for (int i = 0; i < rounds; i++) {
            System.out.printf("baseline  round %d: trivial JVM runtime client, start to first answer %5d ms%n", i,
                    bench.baseline());
        }
        for (String arg : Arrays.copyOfRange(args, 1, args.length)) {
            String function = arg.substring(0, arg.indexOf('='));
            Path build = Path.of(arg.substring(arg.indexOf('=') + 1)).toAbsolutePath();
            List<String> options = new ArrayList<>(splitOptions(System.getProperty("bench.jvm-options", "")));
            String cds = System.getProperty("bench.appcds-dir");
            if (cds != null) {
                Path archive = Path.of(cds, function + ".jsa");
                Files.deleteIfExists(archive);
                List<String> training = new ArrayList<>(options);
                training.add("-XX:ArchiveClassesAtExit=" + archive);
                bench.run(function, build, training, -1);
                options.add("-XX:SharedArchiveFile=" + archive);
                System.out.printf("%-10s AppCDS archive %s: %.1f MB%n", function, archive, Files.size(archive) / 1e6);
            }
            for (int i = 0; i < rounds; i++) {
                bench.run(function, build, options, i);
            }
        }
    }

    /** One cold start of {@code function}; for ingest also its warm 6 MB invocations. Round -1: AppCDS training. */
    private void run(String function, Path build, List<String> options, int round) throws Exception {
        try (RuntimeApi api = RuntimeApi.start()) {
            String arn = "arn:aws:lambda:eu-west-1:123456789012:function:tributary-" + function;
            String event = switch (function) {
                case "stream-api" -> apiGatewayList();
                case "backfill" -> "{\"version\":\"0\",\"source\":\"tributary.scheduler\","
                        + "\"detail-type\":\"Tributary Backfill Check\",\"detail\":{}}";
                case "ingest" -> {
                    if (ingestStream == null) {
                        ingestStream = ingestStream();
                    }
                    arn = INGEST_ARN + ":" + StreamAlias.PREFIX + ingestStream.id();
                    yield sixMegabytes(0, 10);
                }
                default -> throw new IllegalArgumentException("unknown function " + function);
            };
            long t0 = System.nanoTime();
            Process process = PackagedFunction.launch(build, config, api, options, logs.resolve(function + ".log"));
            try {
                long queued = System.nanoTime();
                RuntimeApi.Invocation first = api.invoke(arn, event, TIMEOUT);
                long answered = queued + first.nanos();
                long polled = api.awaitFirstPoll(Duration.ZERO.plusSeconds(1));
                if (first.status() != 200) {
                    throw new IllegalStateException(function + " failed its first invocation: " + first.body()
                            + "; see " + logs.resolve(function + ".log"));
                }
                String label = round < 0 ? "training" : "round " + round;
                long cold = ms(answered - t0);
                System.out.printf("%-10s %-9s: cold start to first answer %5d ms (runtime ready after %5d ms); goal "
                        + "<= %d ms: %s%n", function, label, cold, ms(polled - t0), COLD_GOAL_MS, verdict(cold,
                        COLD_GOAL_MS));
                if (function.equals("ingest") && round >= 0) {
                    List<Long> warm = new ArrayList<>();
                    for (int i = 0; i < 4; i++) {
                        String batch = sixMegabytes(++ingestRound, RECORDS / PARTITIONS);
                        RuntimeApi.Invocation inv = api.invoke(arn, batch, TIMEOUT).ok();
                        if (JsonPath.from(inv.body()).getLong("rows_added") != RECORDS) {
                            throw new IllegalStateException("the 6 MB batch did not land whole: " + inv.body());
                        }
                        warm.add(ms(inv.nanos()));
                    }
                    long median = warm.stream().sorted().toList().get(warm.size() / 2);
                    System.out.printf("%-10s %-9s: warm 6 MB MSK batch (%.2f MB, %d records), 4 in a row: %s ms; "
                            + "goal <= %d ms: %s (middle value %d ms)%n", function, label,
                            sixMegabytes(ingestRound, RECORDS / PARTITIONS).length() / 1e6, RECORDS, warm,
                            WARM_GOAL_MS, verdict(median, WARM_GOAL_MS), median);
                }
            } finally {
                process.destroy();
                if (!process.waitFor(60, TimeUnit.SECONDS)) {
                    process.destroyForcibly().waitFor();
                }
            }
        }
    }

    /** The trivial runtime client: JVM start, one poll, one answer. */
    private long baseline() throws Exception {
        try (RuntimeApi api = RuntimeApi.start()) {
            ProcessBuilder builder = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-cp", Path.of(LambdaBench.class.getProtectionDomain().getCodeSource().getLocation().toURI())
                            .toString(), Hello.class.getName()).inheritIO();
            builder.environment().put("AWS_LAMBDA_RUNTIME_API", api.address());
            long t0 = System.nanoTime();
            Process p = builder.start();
            long queued = System.nanoTime();
            RuntimeApi.Invocation answer = api.invoke("arn:aws:lambda:eu-west-1:123456789012:function:hello", "{}",
                    TIMEOUT).ok();
            p.waitFor();
            return ms(queued + answer.nanos() - t0);
        }
    }

    private RegistryRows.Registered ingestStream() throws Exception {
        // The bench's JDBC and table helpers read the services' settings as the integration tests get them.
        config.forEach(System::setProperty);
        Tables tables = RegistryRows.tables();
        Map<PartitionKey, Long> start = new HashMap<>();
        for (int p = 0; p < PARTITIONS; p++) {
            start.put(new PartitionKey("bench", p), 0L);
        }
        migrate();
        RegistryRows.connection("bench-kafka", RegistryRows.brokerWith("bench", PARTITIONS));
        return RegistryRows.stream(tables, "bench-kafka", "bench", "b", "bench", IngestFunctionIT.PAYLOAD_SCHEMA,
                null, "NOT_CONFIGURED", start);
    }

    /** Creates the registry schema the way every function does at start-up (Flyway, the same migrations). */
    private void migrate() {
        org.flywaydb.core.Flyway.configure()
                .dataSource(RegistryRows.jdbcUrl(config.get("quarkus.datasource.jdbc.url"),
                        config.get("quarkus.datasource.reactive.url")), config.get("quarkus.datasource.username"),
                        config.get("quarkus.datasource.password"))
                .locations("classpath:db/migration").load().migrate();
    }

    /** Round {@code round} of ingest batches: {@code perPartition} new records in each of the 6 partitions. */
    static String sixMegabytes(int round, int perPartition) {
        List<IngestFixtures.Rec> records = new ArrayList<>(perPartition * PARTITIONS);
        long base = round == 0 ? 0 : 10 + (long) (round - 1) * perPartition;
        for (int p = 0; p < PARTITIONS; p++) {
            for (int i = 0; i < perPartition; i++) {
                long offset = base + i;
                records.add(new IngestFixtures.Rec("bench", p, offset, 1_700_000_000_000L + offset,
                        "key-" + p + "-" + offset, "{\"id\":\"tx-" + p + "-" + offset + "-abcdefghijklmnopqrstuvwxyz\","
                                + "\"amount\":" + (offset % 1000) + ".25}"));
            }
        }
        return IngestFixtures.mskEvent(records);
    }

    private static String apiGatewayList() {
        return "{\"version\":\"2.0\",\"routeKey\":\"ANY /api/{proxy+}\",\"rawPath\":\"/api/2.0/feature-engineering/streams\","
                + "\"rawQueryString\":\"catalog_name=main\",\"queryStringParameters\":{\"catalog_name\":\"main\"},"
                + "\"headers\":{\"accept\":\"application/json\",\"host\":\"api.example.com\"},"
                + "\"requestContext\":{\"requestId\":\"bench\",\"stage\":\"$default\",\"http\":{\"method\":\"GET\","
                + "\"path\":\"/api/2.0/feature-engineering/streams\",\"protocol\":\"HTTP/1.1\",\"sourceIp\":\"127.0.0.1\"},"
                + "\"authorizer\":{\"jwt\":{\"claims\":{\"sub\":\"bench\"}}}},\"isBase64Encoded\":false}";
    }

    private static List<String> splitOptions(String options) {
        return options.isBlank() ? List.of() : List.of(options.trim().split("\\s+"));
    }

    private static String verdict(long measuredMs, long goalMs) {
        return measuredMs <= goalMs ? "met" : "NOT met";
    }

    private static long ms(long nanos) {
        return TimeUnit.NANOSECONDS.toMillis(nanos);
    }

    /** The baseline's function: a JVM that polls the runtime API once and answers, with the JDK's HTTP client only. */
    public static final class Hello {
        public static void main(String[] args) throws IOException {
            String api = "http://" + System.getenv("AWS_LAMBDA_RUNTIME_API") + "/2018-06-01/runtime/invocation/";
            HttpURLConnection next = (HttpURLConnection) URI.create(api + "next").toURL().openConnection();
            String id = next.getHeaderField("Lambda-Runtime-Aws-Request-Id");
            next.getInputStream().readAllBytes();
            HttpURLConnection response = (HttpURLConnection) URI.create(api + id + "/response").toURL()
                    .openConnection();
            response.setRequestMethod("POST");
            response.setDoOutput(true);
            response.getOutputStream().write("{\"hello\":true}".getBytes(StandardCharsets.UTF_8));
            response.getInputStream().readAllBytes();
        }
    }
}
