package org.apache.parquet;

import java.util.HashMap;
import org.apache.parquet.bytes.HeapByteBufferAllocator;
import org.apache.parquet.compression.CompressionCodecFactory;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.filter2.compat.FilterCompat;
import org.apache.parquet.format.converter.ParquetMetadataConverter;

/**
 * Parquet read options built without Hadoop. Both of {@link ParquetReadOptions.Builder}'s constructors load Hadoop
 * classes before a file is opened (the no-argument one a Hadoop {@code Configuration}; the other calls
 * {@code ParquetInputFormat.getFilter}, a subclass of Hadoop's {@code FileInputFormat}), and the function zips carry
 * no Hadoop, so the options' package-private constructor is called from this package. It lives in our sources because
 * parquet-hadoop (1.16) has no Hadoop-free way to make them; drop it when Parquet has one. The values are the
 * builder's defaults except those given: statistics pruning of row groups only (Kernel's reader's choice), no
 * record-level, dictionary, bloom or column-index filtering.
 */
public final class PlainReadOptions {
    private static final int DEFAULT_MAX_ALLOCATION = 8 * 1024 * 1024;

    private PlainReadOptions() {}

    public static ParquetReadOptions statsFiltered(FilterCompat.Filter filter, CompressionCodecFactory codecs) {
        return new ParquetReadOptions(
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
                new HashMap<>(),
                null, // no decryption
                null, // no metrics callback
                new PlainParquetConfiguration());
    }
}
