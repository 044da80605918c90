/**
 * Delta tables: the log through Delta Kernel, data files through parquet-avro, bytes through one storage seam.
 *
 * <p>Entry point: {@link io.tributary.delta.Tables#forWarehouse(io.tributary.delta.Warehouse)}. A micro-batch is
 * {@link io.tributary.delta.DeltaTable#writeDataFile} (one Parquet file with statistics, not yet visible) followed by
 * {@link io.tributary.delta.DeltaTable#commit} (the files plus the next offset of every partition, in one Delta
 * commit).
 *
 * <p>How the pieces fit:
 * <ul>
 *   <li>{@code Storage} ({@code LocalStorage}, {@code S3Storage}, chosen per path by {@code RoutingStorage}) is the
 *       only code that touches files. Its {@code putIfAbsent} is the multi-writer guarantee: a hard link locally, a
 *       conditional PUT ({@code If-None-Match: *}) on S3.</li>
 *   <li>{@code StorageFileIO} gives Kernel's default engine that storage, so no Hadoop FileSystem or LogStore is
 *       used; Kernel commits through {@code putIfAbsent} and rebases on a lost race.</li>
 *   <li>{@code PositionDomains}: one domain-metadata entry per partition; Kernel fails a commit that races another
 *       writer of the same partition and rebases writers of different partitions.</li>
 *   <li>{@code ParquetDataFiles} + {@code FileStatistics} + {@code PureJavaSnappy}: the data file, its Delta
 *       statistics, pure-Java compression.</li>
 *   <li>{@code TableReader} (Kernel scan), {@code TableCompaction} (remove + add through Kernel internals),
 *       {@code CommitLog} (did an ambiguous commit land?).</li>
 * </ul>
 *
 * <p>Native-image notes: Kernel's Parquet reader still builds a Hadoop {@code Configuration} (hadoop-client-api at
 * run time) and decompresses with parquet-hadoop's codec classes, so reading snappy files (ours, Spark's) needs
 * snappy-java's JNI library in the image; writing does not (aircompressor, pure Java, uses {@code sun.misc.Unsafe}).
 * Kernel's checkpoints are written uncompressed for the same reason. Kernel's {@code LoggingMetricsReporter} and
 * {@code JsonUtils} use Jackson databind.
 */
package io.tributary.delta;
