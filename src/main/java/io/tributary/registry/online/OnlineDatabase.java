package io.tributary.registry.online;

import io.agroal.api.AgroalDataSource;
import io.agroal.api.configuration.AgroalConnectionPoolConfiguration;
import io.agroal.api.configuration.supplier.AgroalDataSourceConfigurationSupplier;
import io.agroal.api.exceptionsorter.PostgreSQLExceptionSorter;
import io.agroal.api.security.NamePrincipal;
import io.agroal.api.security.SimplePassword;
import io.quarkus.runtime.ShutdownEvent;
import io.tributary.config.OnlineConfig;
import io.tributary.delta.Tables;
import io.tributary.online.OnlineLookup;
import io.tributary.online.OnlineStore;
import io.tributary.online.SyncHooks;
import io.tributary.online.TableSync;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.sql.SQLException;
import java.time.Duration;
import javax.sql.DataSource;

/**
 * The online database: by default the registry database's own pool (a schema of its own in it), or, with
 * {@code tributary.online.jdbc-url}, a pool of its own to a separate PostgreSQL, so lookups and syncs do not compete
 * with the registry.
 */
@ApplicationScoped
public class OnlineDatabase {
    private final OnlineStore store;
    private final AgroalDataSource own;
    private final Tables tables;
    private final String where;
    private volatile SyncHooks hooks = SyncHooks.NONE;

    @Inject
    public OnlineDatabase(DataSource registry, OnlineConfig config, Tables tables) {
        this.tables = tables;
        // Named without the URL's parameters, which may hold a password.
        this.where = "schema " + config.schema() + " of " + config.jdbcUrl().map(OnlineDatabase::shown)
                .map(u -> "TRIBUTARY_ONLINE_JDBC_URL " + u).orElse("the registry database");
        if (config.jdbcUrl().isPresent()) {
            this.own = pool(config);
            this.store = new OnlineStore(own, config.schema());
        } else {
            this.own = null;
            this.store = new OnlineStore(registry, config.schema());
        }
    }

    private static AgroalDataSource pool(OnlineConfig config) {
        // What Quarkus sets up for its own datasources, which this pool, built by hand, lacked: without it the pool
        // went on handing out the connections a database restart had closed, and every sync and lookup failed with
        // "This connection has been closed." until the server restarted. A connection that failed with a connection
        // error is discarded; one idle for a while is checked before it is handed out; idle ones are checked now and
        // then in the background.
        AgroalDataSourceConfigurationSupplier supplier = new AgroalDataSourceConfigurationSupplier()
                .connectionPoolConfiguration(cp -> cp.maxSize(config.maxConnections()).minSize(0)
                        .acquisitionTimeout(Duration.ofSeconds(10))
                        .exceptionSorter(new PostgreSQLExceptionSorter())
                        .connectionValidator(AgroalConnectionPoolConfiguration.ConnectionValidator
                                .defaultValidatorWithTimeout(5))
                        .idleValidationTimeout(Duration.ofSeconds(2))
                        .validationTimeout(Duration.ofSeconds(30))
                        .connectionFactoryConfiguration(cf -> {
                            cf.jdbcUrl(jdbcUrl(config.jdbcUrl().get()));
                            config.username().ifPresent(u -> cf.principal(new NamePrincipal(u)));
                            config.password().ifPresent(p -> cf.credential(new SimplePassword(p)));
                            return cf;
                        }));
        try {
            return AgroalDataSource.from(supplier);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot open the online database at tributary.online.jdbc-url: "
                    + e.getMessage(), e);
        }
    }

    /**
     * The setting as pgjdbc's URL: a {@code postgresql://} URL, the registry setting's form, is taken as well (the
     * server failed to start with pgjdbc's "No suitable driver", naming no setting).
     *
     * @throws IllegalStateException naming the setting for anything else
     */
    static String jdbcUrl(String setting) {
        String url = setting.strip();
        if (url.regionMatches(true, 0, "jdbc:postgresql:", 0, "jdbc:postgresql:".length())) {
            return url;
        }
        return io.tributary.config.JdbcUrls.fromReactive(url, null).orElseThrow(() -> new IllegalStateException(
                "TRIBUTARY_ONLINE_JDBC_URL '" + shown(url) + "' is not a PostgreSQL URL: use "
                        + "jdbc:postgresql://host:port/database"));
    }

    /** A URL as messages show it: without its parameters or user info, either of which may hold a password. */
    static String shown(String url) {
        String u = url.split("\\?", 2)[0];
        int scheme = u.indexOf("://");
        int at = u.lastIndexOf('@');
        return scheme >= 0 && at > scheme ? u.substring(0, scheme + 3) + u.substring(at + 1) : u;
    }

    public OnlineStore store() {
        return store;
    }

    /** The online schema is in the registry database itself (no {@code tributary.online.jdbc-url}). */
    public boolean inRegistry() {
        return own == null;
    }

    /** Where the online tables are, as the settings name it (no credentials). */
    public String where() {
        return where;
    }

    public TableSync sync() {
        return new TableSync(tables, store, hooks);
    }

    public OnlineLookup lookup() {
        return new OnlineLookup(store);
    }

    public SyncHooks hooks() {
        return hooks;
    }

    /** Tests: stop a sync at a chosen point (a crash between the Delta commit and the PostgreSQL transaction). */
    public void hooks(SyncHooks hooks) {
        this.hooks = hooks == null ? SyncHooks.NONE : hooks;
    }

    void onShutdown(@Observes ShutdownEvent event) {
        if (own != null) {
            own.close();
        }
    }
}
