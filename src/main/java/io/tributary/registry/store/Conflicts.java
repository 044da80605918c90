package io.tributary.registry.store;

import java.sql.SQLException;

/**
 * Telling a lost race from a failure. Two requests for one name can both pass a "does it exist?" read and then both
 * write; the database's constraints let one win, and the loser must hear a 409 about the name, not a 500.
 */
public final class Conflicts {
    /** PostgreSQL's {@code unique_violation}. */
    private static final String UNIQUE_VIOLATION = "23505";
    /** PostgreSQL's {@code foreign_key_violation}: a row this one refers to was deleted meanwhile, or the reverse. */
    private static final String FOREIGN_KEY_VIOLATION = "23503";

    private Conflicts() {}

    /** True when a unique constraint refused the write somewhere in the chain of {@code e}. */
    public static boolean uniqueViolation(Throwable e) {
        return sqlState(e, UNIQUE_VIOLATION);
    }

    /**
     * True when a foreign key refused the write: a stream created with a connection another request deleted at the
     * same time, or a connection deleted while a stream that uses it was being created.
     */
    public static boolean foreignKeyViolation(Throwable e) {
        return sqlState(e, FOREIGN_KEY_VIOLATION);
    }

    private static boolean sqlState(Throwable e, String state) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof org.hibernate.JDBCException j && state.equals(j.getSQLState())
                    || t instanceof SQLException s && state.equals(s.getSQLState())
                    || t instanceof io.vertx.pgclient.PgException p && state.equals(p.getSqlState())) {
                return true;
            }
        }
        return false;
    }

    /** True when a row this request read was changed or removed by another before this one wrote it. */
    public static boolean lostUpdate(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof jakarta.persistence.OptimisticLockException
                    || t instanceof org.hibernate.StaleStateException) {
                return true;
            }
        }
        return false;
    }
}
