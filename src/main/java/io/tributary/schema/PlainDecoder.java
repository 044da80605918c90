package io.tributary.schema;

import java.nio.charset.StandardCharsets;

/** A side without a schema: the bytes as UTF-8 text (invalid sequences become U+FFFD rather than failing). */
final class PlainDecoder implements Decoder {
    @Override
    public Object decode(byte[] bytes) {
        return bytes == null ? null : new String(bytes, StandardCharsets.UTF_8);
    }
}
