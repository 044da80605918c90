package io.tributary.schema;

import org.apache.avro.Schema;

/** The Avro sample of {@link AvroDecoderTest}, for tests that need a fully populated datum. */
final class AvroDecoderTestSchema {
    static final String TEXT = AvroDecoderTest.SCHEMA;

    private AvroDecoderTestSchema() {}

    static byte[] sampleBytes(Schema writer) throws Exception {
        return AvroDecoderTest.encode(writer,
                AvroDecoderTest.sample(writer, writer.getField("event").schema().getTypes().get(2)));
    }
}
