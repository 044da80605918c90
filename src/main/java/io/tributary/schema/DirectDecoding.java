package io.tributary.schema;

/**
 * Whether decoders take the direct ways of issue #17 (Protobuf from the wire by field number, Avro written with the
 * reader schema without the resolving decoder, JSON through {@link AsciiJson} before Jackson). {@code tributary.ingest.direct-write=false} turns them off with the
 * direct Parquet writer, for comparisons; both ways give the same values and failures. Read when a decoder is made, so
 * a test or bench can make decoders of both kinds side by side.
 */
final class DirectDecoding {
    private DirectDecoding() {}

    static boolean enabled() {
        return !"false".equals(System.getProperty("tributary.ingest.direct-write"));
    }
}
