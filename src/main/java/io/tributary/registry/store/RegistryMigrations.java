package io.tributary.registry.store;

import io.quarkus.runtime.StartupEvent;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Set;
import java.util.TreeSet;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.jboss.logging.Logger;

/**
 * Brings the registry database to the schema this build carries, first thing at start-up. Flyway's own start-up
 * check (read every script, validate, migrate) loads a few hundred classes and runs on every start, which a Lambda
 * function pays on every cold start although the schema is almost always current. So the newest applied version is
 * read with one query, and Flyway runs only when a version this build carries ({@link #VERSIONS}) is not applied: a
 * fresh database, or the first start after an upgrade (Flyway's own lock serialises processes that start together).
 * A database with versions this build does not know (an older function beside a newer one) is left alone.
 */
@ApplicationScoped
public class RegistryMigrations {
    private static final Logger LOG = Logger.getLogger(RegistryMigrations.class);
    /** The scripts under {@code db/migration}; {@code MigrationsTest} fails when one is added without it here. */
    public static final Set<Integer> VERSIONS = Set.of(1, 2, 3, 4, 5, 6, 7, 8);
    private static final String UNDEFINED_TABLE = "42P01";

    @Inject
    DataSource dataSource;
    @Inject
    Instance<Flyway> flyway;

    void migrate(@Observes @Priority(0) StartupEvent event) throws SQLException {
        Set<Integer> missing = new TreeSet<>(VERSIONS);
        missing.removeAll(appliedVersions(dataSource));
        if (missing.isEmpty()) {
            return;
        }
        LOG.infof("registry database lacks schema versions %s of this build: migrating", missing);
        flyway.get().migrate();
    }

    /** The versions Flyway applied successfully; none on a database it never migrated. */
    static Set<Integer> appliedVersions(DataSource db) throws SQLException {
        Set<Integer> applied = new TreeSet<>();
        try (Connection c = db.getConnection(); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT version FROM flyway_schema_history"
                        + " WHERE success AND version IS NOT NULL")) {
            while (rs.next()) {
                applied.add(Integer.parseInt(rs.getString(1)));
            }
            return applied;
        } catch (SQLException e) {
            if (UNDEFINED_TABLE.equals(e.getSQLState())) {
                return applied;
            }
            throw e;
        }
    }
}
