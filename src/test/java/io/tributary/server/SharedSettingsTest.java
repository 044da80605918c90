package io.tributary.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tributary.delta.Tables;
import io.tributary.security.SecretCipher;
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
 * Servers of one registry must write to one warehouse and hold one secrets key. A warehouse that is not the registry's, above all the same local
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

    private static void start(DataSource registry, Path warehouse) {
        starting(registry, warehouse, null).checkWarehouse();
    }

    private static SharedSettings starting(DataSource registry, Path warehouse, SecretCipher cipher) {
        SharedSettings check = new SharedSettings();
        check.registry = registry;
        check.warehouse = warehouse.toString();
        check.tables = Tables.forWarehouse(warehouse.toString(), Optional.empty());
        check.cipher = cipher;
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
