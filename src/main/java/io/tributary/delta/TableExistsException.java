package io.tributary.delta;

public final class TableExistsException extends RuntimeException {
    public TableExistsException(String location) {
        super("a Delta table already exists at " + location);
    }
}
