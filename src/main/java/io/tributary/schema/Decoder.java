package io.tributary.schema;

/**
 * Turns the bytes of a Kafka key or value into the value of its column, in the Avro data model that
 * {@link SideSchema#columnSchema()} describes (GenericRecord, List, Map with String keys, Utf8/String, Long, Integer,
 * Double, Float, Boolean, ByteBuffer, BigDecimal for decimals, Long micros for timestamps, Integer days for dates).
 * Instances are not thread-safe: take one per consumer thread.
 */
public interface Decoder {
    /** @return the column value, or null for null bytes */
    Object decode(byte[] bytes) throws DecodeException;
}
