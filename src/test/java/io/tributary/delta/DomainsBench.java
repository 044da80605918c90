package io.tributary.delta;

import io.tributary.testing.S3ProxyServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * bench/domains: the time of a commit to a table holding N position domains (one per Kafka partition or direct-ingest
 * producer), on the local disk or S3Proxy: 60 commits of one partition's next offset, each followed by a read of the
 * positions as a writer makes, the first 10 not counted. Run once per configuration by bench/domains/run.sh (Kernel
 * reads {@code tributary.delta.checksum-max-domains} once per process).
 *   args: domains (e.g. 2000), storage (local | s3)
 */
public final class DomainsBench {
    public static void main(String[] args) throws Exception {
        int n = Integer.parseInt(args[0]);
        boolean s3 = "s3".equals(args[1]);
        Path dir = Files.createTempDirectory("tributary-domains");
        S3ProxyServer proxy = null;
        Tables tables;
        if (s3) {
            proxy = S3ProxyServer.start(dir).exportCredentials();
            proxy.createBucket("bench");
            tables = Tables.forWarehouse("s3://bench/tables", Optional.of(proxy.endpoint()));
        } else {
            tables = Tables.forWarehouse(dir.resolve("warehouse").toString(), Optional.empty());
        }
        try {
            Map<PartitionKey, Long> start = new HashMap<>();
            for (int i = 0; i < n; i++) {
                start.put(new PartitionKey("t", i), 0L);
            }
            DeltaTable table = tables.create(tables.defaultLocation("main", "bench", "t"), TestRows.SIMPLE, start);
            PartitionKey p = new PartitionKey("t", 0);
            long[] ms = new long[60];
            for (int i = 0; i < ms.length; i++) {
                long t = System.nanoTime();
                table.commit(List.of(), Map.of(p, new OffsetRange(i, i + 1)));
                table.positions();
                ms[i] = (System.nanoTime() - t) / 1_000_000;
            }
            long[] counted = Arrays.copyOfRange(ms, 10, ms.length);
            Arrays.sort(counted);
            System.out.printf("RESULT domains=%d storage=%s checksum-max-domains=%d: commit median %d ms, p90 %d ms%n",
                    n, args[1], KernelTables.CHECKSUM_MAX_DOMAINS, counted[counted.length / 2],
                    counted[counted.length * 9 / 10]);
        } finally {
            if (proxy != null) {
                proxy.close();
            }
        }
    }
}
