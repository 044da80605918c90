package io.tributary.registry.store;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.Test;

/** Migrations that move data, run against data an older version wrote (an empty database proves nothing there). */
class MigrationsTest {

    @Test
    void v3SplitsEachStreamsMappingIdsIntoOneRowPerMapping() throws Exception {
        Path dir = Files.createTempDirectory("tributary-migrations-");
        try (EmbeddedPostgres postgres = EmbeddedPostgres.builder().setDataDirectory(dir).start()) {
            DataSource db = postgres.getPostgresDatabase();
            flyway(db, "2").migrate();
            try (Connection c = db.getConnection(); Statement s = c.createStatement()) {
                s.execute("INSERT INTO registered_tables VALUES ('c.s.a_t', '/w/a', 'INGESTION', 'alice', now()),"
                        + " ('c.s.b_t', '/w/b', 'INGESTION', 'alice', now())");
                s.execute("INSERT INTO streams (id, full_name, catalog_name, schema_name, definition, table_name,"
                        + " created_by, created_at, backfill_state) VALUES"
                        + " ('id-a', 'c.s.a', 'c', 's', '{}', 'c.s.a_t', 'alice', now(), 'NOT_CONFIGURED'),"
                        + " ('id-b', 'c.s.b', 'c', 's', '{}', 'c.s.b_t', 'alice', now(), 'NOT_CONFIGURED')");
                s.execute("INSERT INTO ingest_mappings VALUES ('id-a', 'm-1,m-2'), ('id-b', 'm-3')");
            }
            flyway(db, "latest").migrate();
            try (Connection c = db.getConnection(); Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("SELECT m.mapping_id, m.stream_id, m.topic, i.stopping"
                            + " FROM ingest_mapping_topics m JOIN ingest_mappings i ON i.stream_id = m.stream_id"
                            + " ORDER BY m.mapping_id")) {
                List<String> rows = new ArrayList<>();
                while (rs.next()) {
                    rows.add(rs.getString(1) + " " + rs.getString(2) + " " + rs.getString(3) + " " + rs.getBoolean(4));
                }
                assertEquals(List.of("m-1 id-a null false", "m-2 id-a null false", "m-3 id-b null false"), rows);
            }
        }
    }

    /** Start-up runs Flyway only when a version of this build is missing from the database (RegistryMigrations). */
    @Test
    void startUpKnowsEveryScriptAndReadsWhatTheDatabaseHas() throws Exception {
        Set<Integer> scripts;
        try (var files = Files.list(Path.of("src/main/resources/db/migration"))) {
            scripts = files.map(p -> p.getFileName().toString()).filter(n -> n.matches("V[0-9]+__.*\\.sql"))
                    .map(n -> Integer.parseInt(n.substring(1, n.indexOf("__")))).collect(Collectors.toCollection(TreeSet::new));
        }
        assertEquals(scripts, new TreeSet<>(RegistryMigrations.VERSIONS),
                "RegistryMigrations.VERSIONS must list every script under db/migration");

        Path dir = Files.createTempDirectory("tributary-migrations-");
        try (EmbeddedPostgres postgres = EmbeddedPostgres.builder().setDataDirectory(dir).start()) {
            DataSource db = postgres.getPostgresDatabase();
            assertEquals(Set.of(), RegistryMigrations.appliedVersions(db), "a database never migrated");
            flyway(db, "2").migrate();
            assertEquals(Set.of(1, 2), RegistryMigrations.appliedVersions(db));
            flyway(db, "latest").migrate();
            assertEquals(scripts, RegistryMigrations.appliedVersions(db));
        }
    }

    private static Flyway flyway(DataSource db, String target) {
        return Flyway.configure().dataSource(db).locations("classpath:db/migration").target(target).load();
    }
}
