package io.tributary.delta;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.delta.kernel.data.ColumnarBatch;
import io.delta.kernel.engine.FileReadResult;
import io.delta.kernel.types.LongType;
import io.delta.kernel.types.StringType;
import io.delta.kernel.types.StructType;
import io.delta.kernel.utils.CloseableIterator;
import io.delta.kernel.utils.FileStatus;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.InvocationTargetException;
import java.net.MalformedURLException;
import java.net.URI;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.jar.JarFile;
import java.util.stream.Stream;
import org.apache.avro.Schema;
import org.apache.avro.SchemaBuilder;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.parquet.avro.AvroParquetWriter;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.io.LocalOutputFile;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Every Parquet read goes through pure-Java codecs (no snappy-java or zstd-jni, whose JNI libraries a native image
 * does not carry), and no table path needs Hadoop (whose jars the function zips leave out), checkpoints included. The
 * reads and writes run in a class loader made of this test's class path without the snappy-java, zstd-jni and Hadoop
 * jars, so any path that still reached them fails with a NoClassDefFoundError.
 */
class PureJavaReadsTest {
    private static URLClassLoader withoutJni;

    @TempDir
    static Path dir;

    @BeforeAll
    static void isolate() throws IOException {
        List<URL> urls = new ArrayList<>();
        for (String entry : classPath()) {
            String name = new File(entry).getName();
            if (!name.startsWith("snappy-java") && !name.startsWith("zstd-jni") && !name.startsWith("hadoop-")) {
                urls.add(new File(entry).toURI().toURL());
            }
        }
        withoutJni = new URLClassLoader(urls.toArray(URL[]::new), ClassLoader.getPlatformClassLoader());
    }

    @Test
    void theIsolatedClassLoaderHasNoJniCodecs() {
        assertThatThrownBy(() -> Class.forName("org.xerial.snappy.Snappy", true, withoutJni))
                .isInstanceOf(ClassNotFoundException.class);
        assertThatThrownBy(() -> Class.forName("com.github.luben.zstd.Zstd", true, withoutJni))
                .isInstanceOf(ClassNotFoundException.class);
        assertThatThrownBy(() -> Class.forName("org.apache.hadoop.conf.Configuration", true, withoutJni))
                .isInstanceOf(ClassNotFoundException.class);
    }

    @Test
    void checkpointsAreWrittenWithoutHadoopAndReadByKernelsOwnEngine() throws Exception {
        Path table = dir.resolve("checkpointed");
        assertThat(call("writeCommits", table.toString())).isEqualTo(12L * 25);
        Path log = table.resolve("_delta_log");
        assertThat(log.resolve("00000000000000000010.checkpoint.parquet")).exists();
        // Kernel's stock (Hadoop) engine must start from our checkpoint: the commits before it are gone.
        for (int v = 0; v < 10; v++) {
            Files.delete(log.resolve(String.format("%020d.json", v)));
        }
        assertThat(IndependentReader.version(table.toString())).isEqualTo(12);
        assertThat(IndependentReader.rows(table.toString())).hasSize(12 * 25);
        assertThat(call("tableRows", table.toString())).isEqualTo(12L * 25);
    }

    @Test
    void sparkWrittenSnappyTablesAndCheckpointsReadWithoutJni() throws Exception {
        // tx_history has Snappy data files and Spark's Snappy checkpoints; plain_history only data files.
        for (String fixture : List.of("tx_history", "plain_history")) {
            String location = fixture(fixture);
            long expected = IndependentReader.rows(location).size();
            assertThat(expected).isPositive();
            assertThat(call("tableRows", location)).as(fixture).isEqualTo(expected);
        }
    }

    @Test
    void ourOwnTablesReadWithoutJni() throws Exception {
        Path table = dir.resolve("own");
        long written = (long) call("writeAndCount", table.toString());
        assertThat(written).isEqualTo(25L);
        assertThat(IndependentReader.rows(table.toString())).hasSize(25);
    }

    @ParameterizedTest
    @EnumSource(value = CompressionCodecName.class, names = {"UNCOMPRESSED", "SNAPPY", "GZIP", "ZSTD", "LZ4_RAW"})
    void filesOtherWritersCompressReadWithoutJni(CompressionCodecName codec) throws Exception {
        // Written here with parquet-hadoop's own codecs (snappy-java, zstd-jni where the codec needs them).
        Path file = dir.resolve("other-" + codec + ".parquet");
        Schema schema = SchemaBuilder.record("r").fields().requiredLong("id").requiredString("name").endRecord();
        try (ParquetWriter<GenericRecord> w = AvroParquetWriter.<GenericRecord>builder(
                new LocalOutputFile(file)).withSchema(schema).withCompressionCodec(codec).build()) {
            for (long i = 0; i < 3000; i++) {
                GenericRecord r = new GenericData.Record(schema);
                r.put("id", i);
                r.put("name", "name-" + i % 7);
                w.write(r);
            }
        }
        assertThat(call("fileRows", file.toUri().toString())).isEqualTo(3000L);
    }

    @Test
    void aCodecNoDeltaWriterUsesIsRefusedByName() {
        assertThatThrownBy(() -> PureJavaCodecs.INSTANCE.getDecompressor(CompressionCodecName.BROTLI))
                .hasMessageContaining("BROTLI").hasMessageContaining("SNAPPY");
    }

    private static Object call(String method, String arg) throws Exception {
        Class<?> reads = Class.forName(Reads.class.getName(), true, withoutJni);
        assertThat(reads.getClassLoader()).isSameAs(withoutJni);
        try {
            return reads.getMethod(method, String.class).invoke(null, arg);
        } catch (InvocationTargetException e) {
            throw e.getCause() instanceof Exception ex ? ex : new RuntimeException(e.getCause());
        }
    }

    private static String fixture(String name) throws Exception {
        Path from = Path.of(PureJavaReadsTest.class.getResource("/backfill-fixtures/" + name).toURI());
        Path to = dir.resolve(name);
        try (Stream<Path> files = Files.walk(from)) {
            for (Path p : files.toList()) {
                Path target = to.resolve(from.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(p, target, StandardCopyOption.REPLACE_EXISTING);
                }
            }
        }
        return to.toString();
    }

    /** The test JVM's class path; surefire may hand it over as a manifest-only jar. */
    private static List<String> classPath() throws IOException {
        List<String> out = new ArrayList<>();
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            out.add(entry);
            if (entry.endsWith(".jar") && new File(entry).getName().startsWith("surefirebooter")) {
                try (JarFile jar = new JarFile(entry)) {
                    String cp = jar.getManifest().getMainAttributes().getValue("Class-Path");
                    for (String u : cp == null ? new String[0] : cp.trim().split("\\s+")) {
                        out.add(Path.of(URI.create(new File(entry).toURI().resolve(u).toString())).toString());
                    }
                }
            }
        }
        return out;
    }

    /** Runs inside the class loader without JNI codecs. */
    public static final class Reads {
        private Reads() {}

        public static long tableRows(String location) {
            Tables tables = Tables.forWarehouse(location, Optional.empty());
            long n = 0;
            try (TableRows rows = tables.read(location)) {
                while (rows.hasNext()) {
                    rows.next();
                    n++;
                }
            }
            return n;
        }

        public static long writeAndCount(String location) {
            Schema row = SchemaBuilder.record("row").fields().requiredLong("id").optionalString("name").endRecord();
            Tables tables = Tables.forWarehouse(location, Optional.empty());
            DeltaTable table = tables.create(location, row, java.util.Map.of());
            List<GenericRecord> records = new ArrayList<>();
            for (long i = 0; i < 25; i++) {
                GenericRecord r = new GenericData.Record(row);
                r.put("id", i);
                r.put("name", "n" + i);
                records.add(r);
            }
            table.commit(List.of(table.writeDataFile(records)), java.util.Map.of());
            return tableRows(location);
        }

        /** The create commit and twelve appends: version 12, a checkpoint at 10. */
        public static long writeCommits(String location) {
            Schema row = SchemaBuilder.record("row").fields().requiredLong("id").optionalString("name").endRecord();
            Tables tables = Tables.forWarehouse(location, Optional.empty());
            DeltaTable table = tables.create(location, row, java.util.Map.of());
            for (int commit = 0; commit < 12; commit++) {
                List<GenericRecord> records = new ArrayList<>();
                for (long i = 0; i < 25; i++) {
                    GenericRecord r = new GenericData.Record(row);
                    r.put("id", commit * 25 + i);
                    r.put("name", "n" + i);
                    records.add(r);
                }
                table.commit(List.of(table.writeDataFile(records)), java.util.Map.of());
            }
            return tableRows(location);
        }

        public static long fileRows(String uri) throws IOException {
            KernelTables tables = (KernelTables) Tables.forWarehouse(Path.of(URI.create(uri)).getParent().toString(),
                    Optional.empty());
            StructType schema = new StructType().add("id", LongType.LONG).add("name", StringType.STRING);
            long size = Files.size(Path.of(URI.create(uri)));
            long n = 0;
            try (CloseableIterator<FileReadResult> it = tables.engine().getParquetHandler().readParquetFiles(
                    io.delta.kernel.internal.util.Utils.singletonCloseableIterator(FileStatus.of(uri, size, 0)),
                    schema, Optional.empty())) {
                while (it.hasNext()) {
                    ColumnarBatch batch = it.next().getData();
                    for (int i = 0; i < batch.getSize(); i++) {
                        if (batch.getColumnVector(1).getString(i).startsWith("name-")) {
                            n++;
                        }
                    }
                }
            }
            return n;
        }
    }
}
