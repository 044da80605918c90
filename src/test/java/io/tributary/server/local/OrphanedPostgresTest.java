package io.tributary.server.local;

import static org.assertj.core.api.Assertions.assertThat;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Local mode restarted after {@code kill -9}: the killed server's embedded PostgreSQL outlived it and kept the data
 * directory, so the next start failed until someone killed it by hand (tried with the packaged server). Here a child
 * JVM starts the database as local mode does, writes a row and is killed; local mode's start then comes up on the
 * same directory with the row.
 */
class OrphanedPostgresTest {
    @TempDir
    Path dir;

    @Test
    void aRestartAfterKillNineStopsTheOrphanAndKeepsTheData() throws Exception {
        Path data = dir.resolve("postgres");
        Process owner = new ProcessBuilder(Paths.get(System.getProperty("java.home"), "bin", "java").toString(), "-cp",
                System.getProperty("java.class.path"), Owner.class.getName(), data.toString())
                .redirectErrorStream(true).start();
        try (BufferedReader out = new BufferedReader(new InputStreamReader(owner.getInputStream(),
                StandardCharsets.UTF_8))) {
            String line;
            while ((line = out.readLine()) != null && !line.equals("ready")) {
                // the database's own start-up lines
            }
            assertThat(line).as("the child JVM started its database").isEqualTo("ready");
            owner.destroyForcibly();
            assertThat(owner.waitFor(30, TimeUnit.SECONDS)).isTrue();
        }

        try (EmbeddedPostgres postgres = LocalServices.startPostgres(data);
                Connection c = postgres.getPostgresDatabase().getConnection();
                Statement s = c.createStatement();
                ResultSet rows = s.executeQuery("SELECT count(*) FROM kept")) {
            assertThat(rows.next()).isTrue();
            assertThat(rows.getLong(1)).isEqualTo(1);
        }
    }

    /** Starts the embedded database as local mode does, writes one row, says "ready" and waits to be killed. */
    public static final class Owner {
        public static void main(String[] args) throws Exception {
            EmbeddedPostgres postgres = LocalServices.startPostgres(Path.of(args[0]));
            try (Connection c = postgres.getPostgresDatabase().getConnection(); Statement s = c.createStatement()) {
                s.execute("CREATE TABLE kept (id int)");
                s.execute("INSERT INTO kept VALUES (1)");
            }
            System.out.println("ready");
            System.out.flush();
            Thread.sleep(Long.MAX_VALUE);
        }
    }
}
