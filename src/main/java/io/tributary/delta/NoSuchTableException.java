package io.tributary.delta;

public final class NoSuchTableException extends RuntimeException {
    public NoSuchTableException(String location) {
        super("no Delta table at " + location);
    }
}
