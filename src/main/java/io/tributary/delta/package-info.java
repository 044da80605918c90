/**
 * Delta tables: the log through Delta Kernel, data files through parquet-avro, bytes through one storage seam.
 *
 * <p>Entry point: {@link io.tributary.delta.Tables#forWarehouse(io.tributary.delta.Warehouse)}. A table
 * ({@link io.tributary.delta.DeltaTable}) plays five roles, each a narrow interface its callers depend on:
 * {@link io.tributary.delta.TableSnapshot} (read the latest snapshot), {@link io.tributary.delta.TableWriter} (data
 * files, schema widening), {@link io.tributary.delta.PositionCommits} (a stream's commits with positions),
 * {@link io.tributary.delta.ExclusiveCommits} (a merge's commit that must not be rebased) and
 * {@link io.tributary.delta.TableUpkeep} (compaction, vacuum). A micro-batch is
 * {@link io.tributary.delta.TableWriter#writeDataFile} (one Parquet file with statistics, not yet visible) followed by
 * {@link io.tributary.delta.PositionCommits#commit} (the files plus the next offset of every partition, in one Delta
 * commit, {@code PositionCommit}).
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
 *   <li>{@code ParquetDataFiles} + {@code FileStatistics} + {@code PureJavaCodecs}: the data file, its Delta
 *       statistics, pure-Java compression.</li>
 *   <li>{@code TableReader} (Kernel scan), {@code LiveFiles} (a snapshot's file list), {@code AppendActions} (the
 *       add actions of both commit kinds), {@code TableCompaction} (remove + add through Kernel internals),
 *       {@code CommitLog} (did an ambiguous commit land?).</li>
 * </ul>
 *
 * <p>Native-image notes: {@code PureJavaEngine} is Kernel's default engine with Parquet reads decompressed by
 * {@code PureJavaCodecs} (aircompressor and {@code java.util.zip}: no snappy-java or zstd-jni JNI, for our files,
 * Spark's and checkpoints alike) and without Kernel's Jackson-based {@code LoggingMetricsReporter}. No path loads a
 * Hadoop class: reads drive parquet-hadoop's {@code ParquetFileReader} directly (its {@code ParquetReader} and
 * read-options builders load Hadoop), Kernel's checkpoints are written by {@code BatchParquetWriter} (Kernel's own
 * writer builds a Hadoop {@code Configuration}). {@code PureJavaReadsTest} runs both with the JNI and Hadoop jars off
 * the class path; see function-configs/README.md.
 */
package io.tributary.delta;
