package io.tributary.delta;

import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.util.HashMap;
import java.util.Map;
import org.apache.parquet.ParquetReadOptions;
import org.apache.parquet.bytes.ByteBufferAllocator;
import org.apache.parquet.bytes.HeapByteBufferAllocator;
import org.apache.parquet.compression.CompressionCodecFactory;
import org.apache.parquet.conf.ParquetConfiguration;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.crypto.FileDecryptionProperties;
import org.apache.parquet.filter2.compat.FilterCompat;
import org.apache.parquet.format.converter.ParquetMetadataConverter;
import org.apache.parquet.hadoop.ParquetMetricsCallback;

/**
 * Parquet read options built without Hadoop. Both of {@link ParquetReadOptions.Builder}'s constructors load Hadoop
 * classes before a file is opened (the no-argument one a Hadoop {@code Configuration}; the other calls
 * {@code ParquetInputFormat.getFilter}, a subclass of Hadoop's {@code FileInputFormat}), and the function zips carry
 * no Hadoop. The options' only other constructor is package-private, so it is called by reflection (registered for
 * the native image in {@code META-INF/native-image/io.tributary/reflect-config.json}); a class of ours in Parquet's
 * package cannot do it, Quarkus loads application and library classes in different class loaders. Drop this when
 * Parquet has a Hadoop-free builder (parquet-java 1.16 has none). The values are the builder's defaults except:
 * statistics pruning of row groups only (Kernel's reader's choice), no record-level, dictionary, bloom or column-index
 * filtering. {@code PureJavaReadsTest} reads through it without the Hadoop jars.
 */
final class PlainReadOptions {
    private static final int DEFAULT_MAX_ALLOCATION = 8 * 1024 * 1024;
    private static final Constructor<ParquetReadOptions> CONSTRUCTOR = constructor();

    private PlainReadOptions() {}

    static ParquetReadOptions statsFiltered(FilterCompat.Filter filter, CompressionCodecFactory codecs) {
        try {
            return CONSTRUCTOR.newInstance(
                    false, // useSignedStringMinMax
                    true, // useStatsFilter
                    false, // useDictionaryFilter
                    false, // useRecordFilter
                    false, // useColumnIndexFilter
                    false, // usePageChecksumVerification
                    false, // useBloomFilter
                    false, // useOffHeapDecryptBuffer
                    false, // useHadoopVectoredIo
                    filter,
                    ParquetMetadataConverter.NO_FILTER,
                    codecs,
                    new HeapByteBufferAllocator(),
                    DEFAULT_MAX_ALLOCATION,
                    new HashMap<String, String>(),
                    null, // no decryption
                    null, // no metrics callback
                    new PlainParquetConfiguration());
        } catch (InstantiationException | IllegalAccessException e) {
            throw new IllegalStateException("Parquet's read options cannot be made: " + e, e);
        } catch (InvocationTargetException e) {
            throw new IllegalStateException("Parquet's read options cannot be made: " + e.getCause(), e.getCause());
        }
    }

    private static Constructor<ParquetReadOptions> constructor() {
        try {
            Constructor<ParquetReadOptions> c = ParquetReadOptions.class.getDeclaredConstructor(
                    boolean.class, boolean.class, boolean.class, boolean.class, boolean.class, boolean.class,
                    boolean.class, boolean.class, boolean.class, FilterCompat.Filter.class,
                    ParquetMetadataConverter.MetadataFilter.class, CompressionCodecFactory.class,
                    ByteBufferAllocator.class, int.class, Map.class, FileDecryptionProperties.class,
                    ParquetMetricsCallback.class, ParquetConfiguration.class);
            c.setAccessible(true);
            return c;
        } catch (NoSuchMethodException e) {
            throw new IllegalStateException("this Parquet version's ParquetReadOptions has no constructor this code"
                    + " knows (written for parquet-java 1.16): " + e.getMessage(), e);
        }
    }
}
