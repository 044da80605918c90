package io.tributary.registry.service;

/**
 * Fired (synchronously, on a worker thread, after the registry row is written) when this process creates something
 * that adds after-commit work to a table: a CONTINUOUS synced table, a feature view. The server reads which tables
 * have such work only every second; without this a commit in that second went unfollowed until the catch-up.
 */
public record AfterCommitWorkChanged() {}
