package io.tributary.schema;

/**
 * Turns the bytes of a Kafka key or value into the value of its column, in the Avro data model that
 * {@link SideSchema#columnSchema()} describes (GenericRecord, List, Map with String keys, String, Long, Integer,
 * Double, Float, Boolean, ByteBuffer, BigDecimal for decimals, Long micros for timestamps, Integer days for dates).
 * Records carry exactly the record schemas of the column, so take decoders from {@link StreamSchema#keySide()} and
 * {@link StreamSchema#valueSide()} when writing rows of {@link StreamSchema#rowSchema()}. Writing BigDecimal with
 * parquet-avro needs a GenericData with {@code Conversions.DecimalConversion}, and nullable array elements need
 * {@code parquet.avro.write-old-list-structure=false}. Instances are not thread-safe: take one per consumer thread.
 */
public interface Decoder {
    /**
     * @return the column value, or null for null bytes
     * @throws DecodeException                    the bytes do not decode under the schema (write NULL, count it)
     * @throws SchemaRegistryUnavailableException a registry-backed side could not fetch the writer schema; nothing
     *                                            is known about the bytes, so retry rather than write NULL
     */
    Object decode(byte[] bytes) throws DecodeException;
}
