package io.tributary.schema;

public enum RegistryFormat { FORMAT_AVRO, FORMAT_PROTOBUF }
