package io.tributary.delta;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The recent commits of a table, newest first, read from the raw commit files of its Delta log: what each one added
 * (rows counted from the add actions' statistics, {@code dataChange} adds only, so compaction adds nothing) and when
 * (the commit's {@code commitInfo.timestamp}, else the file's modification time). Kernel's public API has no commit
 * history; the JSON commit files are the Delta protocol's own record of it and any writer's commits are read alike.
 */
final class CommitHistory {
    private static final ObjectMapper JSON = new ObjectMapper();

    private CommitHistory() {}

    /**
     * Walks back from {@code latestVersion} until a commit older than {@code since}, a commit file already cleaned up
     * behind a checkpoint, version 0, or {@code maxCommits} files read, whichever comes first.
     */
    static TableHistory read(Storage storage, String tablePath, long latestVersion, Instant since, int maxCommits) {
        List<TableHistory.Commit> commits = new ArrayList<>();
        boolean complete = true;
        try {
            for (long v = latestVersion; v >= 0; v--) {
                if (commits.size() >= maxCommits) {
                    complete = false;
                    break;
                }
                String file = tablePath + "/_delta_log/" + String.format(Locale.ROOT, "%020d", v) + ".json";
                Optional<Storage.Entry> entry = storage.stat(file);
                if (entry.isEmpty()) {
                    break; // removed behind a checkpoint: nothing older can be read either
                }
                TableHistory.Commit commit = parse(v, storage.read(file), entry.get().modificationTime());
                if (commit.timestamp().isBefore(since)) {
                    break;
                }
                commits.add(commit);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("reading the Delta log of " + tablePath + " failed", e);
        }
        return new TableHistory(latestVersion, commits, complete);
    }

    static TableHistory.Commit parse(long version, byte[] commitFile, long modificationTime) throws IOException {
        long timestamp = modificationTime;
        String operation = null;
        long rows = 0;
        int files = 0;
        for (String line : new String(commitFile, StandardCharsets.UTF_8).split("\n")) {
            if (line.isBlank()) {
                continue;
            }
            JsonNode action = JSON.readTree(line);
            JsonNode info = action.get("commitInfo");
            if (info != null) {
                JsonNode ts = info.has("inCommitTimestamp") ? info.get("inCommitTimestamp") : info.get("timestamp");
                if (ts != null && ts.canConvertToLong()) {
                    timestamp = ts.asLong();
                }
                operation = info.path("operation").asText(null);
            }
            JsonNode add = action.get("add");
            if (add != null && add.path("dataChange").asBoolean(true)) {
                files++;
                String stats = add.path("stats").asText(null);
                if (stats != null) {
                    rows += JSON.readTree(stats).path("numRecords").asLong(0);
                }
            }
        }
        return new TableHistory.Commit(version, Instant.ofEpochMilli(timestamp), operation, rows, files);
    }
}
