package io.tributary.server.local;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jboss.logging.Logger;

/**
 * The embedded PostgreSQL of a local-mode server killed with {@code kill -9} (or by the OOM killer) outlives it: its
 * postmaster is a process of its own and keeps the data directory, so the next start failed ("starting the embedded
 * PostgreSQL … failed") until someone found and killed it by hand. Before a start, such an orphan is stopped.
 *
 * <p>It is an orphan only when no live JVM holds the data directory's {@code epg-lock}, the lock the embedded
 * PostgreSQL library takes for as long as its owner runs: a server still running keeps its database.
 */
final class OrphanedPostgres {
    private static final Logger LOG = Logger.getLogger(OrphanedPostgres.class);
    private static final String LOCK_FILE = "epg-lock";

    private OrphanedPostgres() {}

    static void stopIfOrphaned(Path dataDir) {
        Path pidFile = dataDir.resolve("postmaster.pid");
        if (!Files.exists(pidFile) || !Files.exists(dataDir.resolve(LOCK_FILE))) {
            return;
        }
        try (FileChannel channel = FileChannel.open(dataDir.resolve(LOCK_FILE), StandardOpenOption.WRITE);
                FileLock lock = channel.tryLock()) {
            if (lock == null) {
                return; // a running server owns it; the start fails and says the directory is in use
            }
            postmaster(pidFile).ifPresent(process -> stop(process, dataDir));
        } catch (java.nio.channels.OverlappingFileLockException e) {
            // this JVM runs the database there itself
        } catch (IOException e) {
            LOG.debugf("could not check %s for an orphaned PostgreSQL: %s", dataDir, e.getMessage());
        }
    }

    /** The live postmaster the pid file names, if it is a PostgreSQL (pids are reused). */
    private static Optional<ProcessHandle> postmaster(Path pidFile) throws IOException {
        List<String> lines = Files.readAllLines(pidFile);
        if (lines.isEmpty()) {
            return Optional.empty();
        }
        try {
            return ProcessHandle.of(Long.parseLong(lines.get(0).trim())).filter(ProcessHandle::isAlive)
                    .filter(p -> p.info().command().map(c -> c.endsWith("/postgres")).orElse(false));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }

    private static void stop(ProcessHandle postmaster, Path dataDir) {
        LOG.warnf("stopping the embedded PostgreSQL (pid %d) left running in %s by a server that did not shut down",
                postmaster.pid(), dataDir);
        // SIGTERM: PostgreSQL's smart shutdown, which its dead owner's closed connections do not hold up.
        postmaster.destroy();
        try {
            postmaster.onExit().get(60, TimeUnit.SECONDS);
        } catch (TimeoutException | ExecutionException e) {
            postmaster.destroyForcibly();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
