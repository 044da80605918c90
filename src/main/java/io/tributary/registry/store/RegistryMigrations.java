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
import java.util.OptionalInt;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.jboss.logging.Logger;

/**
 * Brings the registry database to the schema this build carries, first thing at start-up. Flyway's own start-up
 * check (read every script, validate, migrate) loads a few hundred classes and runs on every start, which a Lambda
 * function pays on every cold start although the schema is almost always current. So the newest applied version is
 * read with one query, and Flyway runs only when it is older than {@link #VERSION}: a fresh database, or the first
 * start after an upgrade (Flyway's own lock serialises processes that start together). A database newer than this
 * build (an older function still running beside a newer one) is left alone rather than refused.
 */
@ApplicationScoped
public class RegistryMigrations {
    private static final Logger LOG = Logger.getLogger(RegistryMigrations.class);
    /** The newest script under {@code db/migration}; {@code MigrationsTest} fails when one is added without it. */
    public static final int VERSION = 4;
    private static final String UNDEFINED_TABLE = "42P01";

    @Inject
    DataSource dataSource;
    @Inject
    Instance<Flyway> flyway;

    void migrate(@Observes @Priority(0) StartupEvent event) throws SQLException {
        OptionalInt applied = appliedVersion(dataSource);
        if (applied.isPresent() && applied.getAsInt() >= VERSION) {
            return;
        }
        LOG.infof("registry database at schema version %s, this build needs %d: migrating",
                applied.isPresent() ? applied.getAsInt() : "none", VERSION);
        flyway.get().migrate();
    }

    /** The newest version Flyway applied successfully; empty on a database it never migrated. */
    static OptionalInt appliedVersion(DataSource db) throws SQLException {
        try (Connection c = db.getConnection(); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT version FROM flyway_schema_history"
                        + " WHERE success AND version IS NOT NULL ORDER BY installed_rank DESC LIMIT 1")) {
            return rs.next() ? OptionalInt.of(Integer.parseInt(rs.getString(1))) : OptionalInt.empty();
        } catch (SQLException e) {
            if (UNDEFINED_TABLE.equals(e.getSQLState())) {
                return OptionalInt.empty();
            }
            throw e;
        }
    }
}
