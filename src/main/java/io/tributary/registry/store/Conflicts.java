package io.tributary.registry.store;

import java.sql.SQLException;

/**
 * Telling a lost race from a failure. Two requests for one name can both pass a "does it exist?" read and then both
 * write; the database's constraints let one win, and the loser must hear a 409 about the name, not a 500.
 */
public final class Conflicts {
    /** PostgreSQL's {@code unique_violation}. */
    private static final String UNIQUE_VIOLATION = "23505";

    private Conflicts() {}

    /** True when a unique constraint refused the write somewhere in the chain of {@code e}. */
    public static boolean uniqueViolation(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof org.hibernate.exception.ConstraintViolationException c
                    && (c.getKind() == org.hibernate.exception.ConstraintViolationException.ConstraintKind.UNIQUE
                            || UNIQUE_VIOLATION.equals(c.getSQLState()))
                    || t instanceof SQLException s && UNIQUE_VIOLATION.equals(s.getSQLState())
                    || t instanceof io.vertx.pgclient.PgException p && UNIQUE_VIOLATION.equals(p.getSqlState())) {
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
