package io.tributary.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tributary.delta.Tables;
import io.tributary.online.OnlineStore;
import io.tributary.registry.online.OnlineDatabase;
import io.tributary.security.SecretCipher;
import io.tributary.testing.OnlineConfigs;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Servers of one registry must write to one warehouse and one online database, and hold one secrets key. A warehouse that is not the registry's, above all the same local
 * path on another machine, stops the server at start-up naming the setting and the fix; the registry's own, a
 * registry set up again over the same warehouse, and storage that cannot be read at the moment do not.
 */
class SharedSettingsTest {
    private static EmbeddedPostgres postgres;

    @TempDir
    Path dir;

    @BeforeAll
    static void startPostgres() throws Exception {
        postgres = EmbeddedPostgres.builder().setDataDirectory(Files.createTempDirectory("tributary-warehouse-"))
                .start();
    }

    @AfterAll
    static void stopPostgres() throws Exception {
        postgres.close();
    }

    @Test
    void theFirstServerMarksTheWarehouseAndOnlyServersThatSeeTheMarkStart() throws Exception {
        DataSource registry = freshRegistry("shared");
        Path warehouse = dir.resolve("warehouse");
        start(registry, warehouse);
        assertThat(Files.readString(warehouse.resolve(".tributary-registry"))).isNotBlank();
        start(registry, warehouse); // a restart, or a second server reaching the same storage

        // The same setting on another machine: a directory of its own disk, without the marker. Before, this server
        // started, failed every stream created elsewhere and kept the tables of streams created through it.
        Path otherMachine = dir.resolve("elsewhere/warehouse");
        assertThatThrownBy(() -> start(registry, otherMachine)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("TRIBUTARY_WAREHOUSE " + otherMachine + " is not the warehouse of this registry")
                .hasMessageContaining("lacks the marker the first server wrote at " + warehouse)
                .hasMessageContaining("S3, or a file system each mounts at the same path")
                .hasMessageContaining("echo " + marker(warehouse) + " > <warehouse>/.tributary-registry");
        assertThat(otherMachine.resolve(".tributary-registry")).doesNotExist();

        // The fix the message gives: the marker copied where the warehouse was moved.
        Files.createDirectories(otherMachine);
        Files.writeString(otherMachine.resolve(".tributary-registry"), marker(warehouse) + "\n");
        start(registry, otherMachine);
    }

    @Test
    void aWarehouseOfAnotherRegistryIsRefusedAndARegistrySetUpAgainAdoptsItsOwn() throws Exception {
        Path warehouse = dir.resolve("warehouse");
        start(freshRegistry("first"), warehouse);
        String first = marker(warehouse);

        DataSource second = freshRegistry("second");
        Path own = dir.resolve("own");
        start(second, own);
        assertThatThrownBy(() -> start(second, warehouse)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("belongs to another registry database (its marker is " + first)
                .hasMessageContaining("Set TRIBUTARY_WAREHOUSE back to " + own).hasMessageNotContaining("echo");

        // A registry database created anew (restored, or wiped) over the first warehouse: its marker is adopted.
        DataSource again = freshRegistry("again");
        start(again, warehouse);
        assertThat(marker(warehouse)).isEqualTo(first);
        assertThatThrownBy(() -> start(again, own)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void aWarehouseThatCannotBeReadNowDoesNotStopTheServer() throws Exception {
        Path notADirectory = dir.resolve("file");
        Files.writeString(notADirectory, "x");
        start(freshRegistry("unreadable"), notADirectory.resolve("warehouse"));
    }

    /** The start-up check runs the secrets key's too (SecretsKeyCheckTest has the rest of it). */
    @Test
    void aServerWithAnotherSecretsKeyStopsAtStartUp() throws Exception {
        DataSource registry = freshRegistry("keys");
        Path warehouse = dir.resolve("warehouse");
        starting(registry, warehouse, cipher()).check(null);
        assertThatThrownBy(() -> starting(registry, warehouse, cipher()).check(null))
                .isInstanceOf(IllegalStateException.class).hasMessageStartingWith("TRIBUTARY_SECRETS_KEY is not the key");
    }

    @Test
    void serversOfOneRegistrySyncIntoOneOnlineDatabaseAndSchemaAndAnotherOneStopsTheServer() throws Exception {
        DataSource registry = freshRegistry("online_reg");
        DataSource onlineDb = database("online_db");
        startOnline(registry, new OnlineStore(onlineDb, "tributary_online"), "first");
        startOnline(registry, new OnlineStore(onlineDb, "tributary_online"), "first"); // a restart, a second server
        String marker = new OnlineStore(onlineDb, "tributary_online").marker().orElseThrow();

        // Another server given another TRIBUTARY_ONLINE_JDBC_URL (or none): before, it started and synced into, and
        // answered lookups from, tables no other server reads.
        DataSource elsewhere = database("online_elsewhere");
        OnlineStore other = new OnlineStore(elsewhere, "tributary_online");
        assertThatThrownBy(() -> startOnline(registry, other, "elsewhere")).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("the online database (elsewhere) is not the one of this registry database")
                .hasMessageContaining("lacks the marker the first server wrote into first")
                .hasMessageContaining("the same TRIBUTARY_ONLINE_JDBC_URL (or none) and TRIBUTARY_ONLINE_SCHEMA")
                .hasMessageContaining("INSERT INTO \"tributary_online\"._marker (marker) VALUES ('" + marker + "')");
        assertThat(other.marker()).as("the refused server wrote no marker of its own").isEmpty();
        // Another schema in the same database is another online database just the same.
        assertThatThrownBy(() -> startOnline(registry, new OnlineStore(onlineDb, "other_schema"), "schema"))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("is not the one of this registry");

        // The fix the message gives (the online database moved on purpose).
        try (var c = elsewhere.getConnection(); var st = c.createStatement()) {
            st.execute("INSERT INTO \"tributary_online\"._marker (marker) VALUES ('" + marker + "')");
        }
        startOnline(registry, other, "elsewhere");
    }

    @Test
    void anOnlineDatabaseOfAnotherRegistryIsRefusedAndOneThatCannotBeReachedDoesNotStopTheServer() throws Exception {
        DataSource onlineDb = database("online_shared");
        startOnline(freshRegistry("online_first"), new OnlineStore(onlineDb, "tributary_online"), "first");
        DataSource second = freshRegistry("online_second");
        startOnline(second, new OnlineStore(database("online_own"), "tributary_online"), "own");
        assertThatThrownBy(() -> startOnline(second, new OnlineStore(onlineDb, "tributary_online"), "shared"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("belongs to another registry database")
                .hasMessageContaining("back to own");

        DataSource unreachable = org.postgresql.ds.PGSimpleDataSource.class.getDeclaredConstructor().newInstance();
        ((org.postgresql.ds.PGSimpleDataSource) unreachable).setURL("jdbc:postgresql://127.0.0.1:9/none?connectTimeout=2");
        startOnline(freshRegistry("online_down"), new OnlineStore(unreachable, "tributary_online"), "down");
    }

    @Test
    void theRegistrysOwnOnlineSchemaDroppedByHandGetsItsMarkerBackButAnotherSchemaOfItDoesNot() throws Exception {
        DataSource registry = freshRegistry("online_in_reg");
        String where = "schema tributary_online of the registry database";
        starting(registry, null, null).checkOnline(new OnlineStore(registry, "tributary_online"), where, true);
        String marker = new OnlineStore(registry, "tributary_online").marker().orElseThrow();
        try (var c = registry.getConnection(); var st = c.createStatement()) {
            st.execute("DROP SCHEMA tributary_online CASCADE"); // synced tables started afresh by hand
        }
        starting(registry, null, null).checkOnline(new OnlineStore(registry, "tributary_online"), where, true);
        assertThat(new OnlineStore(registry, "tributary_online").marker()).contains(marker);

        assertThatThrownBy(() -> starting(registry, null, null).checkOnline(new OnlineStore(registry, "elsewhere"),
                "schema elsewhere of the registry database", true)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("is not the one of this registry");
    }

    private static void startOnline(DataSource registry, OnlineStore store, String where) {
        starting(registry, null, null).checkOnline(store, where, false);
    }

    private static DataSource database(String name) throws Exception {
        try (var c = postgres.getPostgresDatabase().getConnection(); var s = c.createStatement()) {
            s.execute("CREATE DATABASE " + name);
        }
        return postgres.getDatabase("postgres", name);
    }

    private static void start(DataSource registry, Path warehouse) {
        starting(registry, warehouse, null).checkWarehouse();
    }

    private static SharedSettings starting(DataSource registry, Path warehouse, SecretCipher cipher) {
        SharedSettings check = new SharedSettings();
        check.registry = registry;
        if (warehouse != null) {
            check.warehouse = warehouse.toString();
            check.tables = Tables.forWarehouse(warehouse.toString(), Optional.empty());
        }
        check.cipher = cipher;
        check.online = new OnlineDatabase(registry, OnlineConfigs.inTheRegistry(), null);
        return check;
    }

    private static SecretCipher cipher() {
        byte[] key = new byte[32];
        new java.security.SecureRandom().nextBytes(key);
        return new SecretCipher(Optional.of(java.util.Base64.getEncoder().encodeToString(key)), false, "/nonexistent");
    }

    private static String marker(Path warehouse) throws Exception {
        return Files.readString(warehouse.resolve(".tributary-registry")).trim();
    }

    private static DataSource freshRegistry(String name) throws Exception {
        try (var c = postgres.getPostgresDatabase().getConnection(); var s = c.createStatement()) {
            s.execute("CREATE DATABASE " + name);
        }
        DataSource db = postgres.getDatabase("postgres", name);
        Flyway.configure().dataSource(db).locations("classpath:db/migration").load().migrate();
        return db;
    }
}
