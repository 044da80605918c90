package io.tributary.delta.kernel;

import io.delta.kernel.Snapshot;
import io.delta.kernel.internal.SnapshotImpl;
import io.delta.kernel.internal.actions.DomainMetadata;
import io.delta.kernel.internal.util.FileNames;
import java.util.LinkedHashMap;
import java.util.Map;

/** What a snapshot knows but Kernel's public {@link Snapshot} does not tell. */
public final class Snapshots {
    private Snapshots() {
    }

    /**
     * The configuration of every domain the snapshot has and has not removed, by domain name. The public API only
     * looks up one domain by name.
     */
    public static Map<String, String> activeDomains(Snapshot snapshot) {
        Map<String, String> out = new LinkedHashMap<>();
        for (Map.Entry<String, DomainMetadata> e : ((SnapshotImpl) snapshot).getActiveDomainMetadataMap().entrySet()) {
            if (!e.getValue().isRemoved()) {
                out.put(e.getKey(), e.getValue().getConfiguration());
            }
        }
        return out;
    }

    /** How many domains the snapshot has (removed ones included: a writer counts them all). */
    public static int domainCount(Snapshot snapshot) {
        return ((SnapshotImpl) snapshot).getActiveDomainMetadataMap().size();
    }

    /** Whether the snapshot's table has partition columns. */
    public static boolean isPartitioned(Snapshot snapshot) {
        return !((SnapshotImpl) snapshot).getMetadata().getPartitionColNames().isEmpty();
    }

    /** The path of the commit file that would hold {@code version} of the snapshot's table. */
    public static String commitFile(Snapshot snapshot, long version) {
        return FileNames.deltaFile(((SnapshotImpl) snapshot).getLogPath(), version);
    }
}
