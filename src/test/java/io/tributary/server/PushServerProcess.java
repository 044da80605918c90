package io.tributary.server;

import io.tributary.delta.Tables;
import io.tributary.ingest.OpenedIngester;
import io.tributary.ingest.PipelineSpec;
import io.tributary.ingest.Subscription;
import io.tributary.ingest.direct.GroupCommit;
import io.tributary.ingest.direct.Push;
import io.tributary.ingest.direct.PushBodies;
import io.tributary.ingest.direct.PushOutcome;
import io.tributary.registry.lock.StreamWriteLocks;
import io.tributary.schema.SchemaSource;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Paths;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * Another server's direct ingest in a child JVM, for tests that kill it with SIGKILL while producers push: the same
 * {@link GroupCommit} over the same table, fenced by the same registry database's write locks, as a server's
 * {@code DirectIngest} builds it. Arguments: JDBC URL, user, password, warehouse, table location, stream id, stream
 * name, the value's JSON Schema. Prints {@code ready}; then each line on stdin is one push body (JSON), answered on
 * stdout by {@code ack <producer> <sequence> <committed_sequence>} once committed, or {@code err <producer>
 * <sequence> <reason>}.
 */
public final class PushServerProcess {

    public static void main(String[] args) throws Exception {
        PGSimpleDataSource database = new PGSimpleDataSource();
        database.setUrl(args[0]);
        database.setUser(args[1]);
        database.setPassword(args[2]);
        Tables tables = Tables.forWarehouse(args[3], Optional.empty());
        PipelineSpec spec = new PipelineSpec(args[5], args[6], args[4], new Subscription.Direct(), Map.of(),
                new SchemaSource.Plain(), new SchemaSource.JsonSchema(args[7]), Instant.now());
        StreamWriteLocks locks = new StreamWriteLocks(database);
        GroupCommit commits = new GroupCommit(spec.streamName(), () -> OpenedIngester.open(tables, spec,
                locks.forStream(spec.streamId(), spec.tableLocation())),
                new GroupCommit.Limits(Duration.ofMillis(5), 200_000, 64 << 20, 256 << 20));
        PushBodies bodies = new PushBodies(spec.keySchema(), spec.valueSchema(), spec.rescueUndecodable());
        tables.open(spec.tableLocation()).positions();
        PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        out.println("ready");
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String line; (line = in.readLine()) != null; ) {
            Push push = bodies.read("application/json", line.getBytes(StandardCharsets.UTF_8),
                    System.currentTimeMillis());
            commits.submit(push).whenComplete((outcome, failure) -> {
                String id = push.producerId() + " " + push.sequence();
                synchronized (out) {
                    if (outcome instanceof PushOutcome.Committed c) {
                        out.println("ack " + id + " " + c.committedSequence());
                    } else {
                        out.println("err " + id + " " + (failure != null ? failure : outcome));
                    }
                }
            });
        }
        System.exit(0);
    }

    static Process spawn(String jdbcUrl, String user, String password, String warehouse, String location,
            String streamId, String streamName, String valueSchema) {
        List<String> cmd = new ArrayList<>();
        cmd.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("-Xmx384m");
        cmd.add("--add-opens=java.base/java.nio=ALL-UNNAMED");
        cmd.add("--add-opens=java.base/sun.nio.ch=ALL-UNNAMED");
        cmd.add("-Dorg.jboss.logging.provider=jdk");
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(PushServerProcess.class.getName());
        cmd.addAll(List.of(jdbcUrl, user, password, warehouse, location, streamId, streamName, valueSchema));
        try {
            return new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
