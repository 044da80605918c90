/**
 * Schemas of a stream's key and value and the row of its ingestion table (SPEC 4, 4.1, 4.2).
 *
 * <p>{@link io.tributary.schema.SideSchema#compile} validates a {@link io.tributary.schema.SchemaSource} (plain, JSON
 * Schema, Avro, Protobuf, or a Confluent-compatible registry subject) and gives the column as an Avro schema plus
 * decoders into it; {@link io.tributary.schema.StreamSchema} puts key, value and the Kafka metadata columns into the
 * row that parquet-avro writes and the Delta schema is derived from. Nothing here knows about Quarkus, HTTP servers
 * or Lambda; the registry client uses the JDK's HttpClient.
 */
package io.tributary.schema;
