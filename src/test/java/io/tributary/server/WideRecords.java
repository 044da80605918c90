package io.tributary.server;

import java.nio.charset.StandardCharsets;
import java.util.Random;

/**
 * The bench's wide payload: about 1 KB of JSON with 30 leaf fields (20 top-level, a nested customer of 6, an array of
 * line items of 3, an array of tags), the shape of a clickstream or order event rather than the 130-byte default.
 */
final class WideRecords {
    private WideRecords() {}

    static final String JSON_SCHEMA = "{\"type\":\"object\",\"properties\":{"
            + "\"event_id\":{\"type\":\"integer\"},\"event_type\":{\"type\":\"string\"},"
            + "\"ts\":{\"type\":\"string\",\"format\":\"date-time\"},\"user_id\":{\"type\":\"string\"},"
            + "\"session_id\":{\"type\":\"string\"},\"device\":{\"type\":\"string\"},\"os\":{\"type\":\"string\"},"
            + "\"app_version\":{\"type\":\"string\"},\"country\":{\"type\":\"string\"},\"city\":{\"type\":\"string\"},"
            + "\"lat\":{\"type\":\"number\"},\"lon\":{\"type\":\"number\"},\"amount\":{\"type\":\"number\"},"
            + "\"currency\":{\"type\":\"string\"},\"items_count\":{\"type\":\"integer\"},\"is_new\":{\"type\":\"boolean\"},"
            + "\"referrer\":{\"type\":\"string\"},\"campaign\":{\"type\":\"string\"},\"page\":{\"type\":\"string\"},"
            + "\"duration_ms\":{\"type\":\"integer\"},"
            + "\"customer\":{\"type\":\"object\",\"properties\":{\"id\":{\"type\":\"integer\"},\"name\":{\"type\":\"string\"},"
            + "\"email\":{\"type\":\"string\"},\"tier\":{\"type\":\"string\"},\"since\":{\"type\":\"string\",\"format\":\"date\"},"
            + "\"score\":{\"type\":\"number\"}}},"
            + "\"items\":{\"type\":\"array\",\"items\":{\"type\":\"object\",\"properties\":{\"sku\":{\"type\":\"string\"},"
            + "\"qty\":{\"type\":\"integer\"},\"price\":{\"type\":\"number\"}}}},"
            + "\"tags\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}}}}";

    private static final String[] TYPES = {"page_view", "add_to_cart", "checkout", "search", "purchase"};
    private static final String[] COUNTRIES = {"DE", "FR", "NL", "ES", "IT", "PL"};

    static byte[] record(long i, Random r) {
        StringBuilder s = new StringBuilder(1100);
        s.append("{\"event_id\":").append(i)
                .append(",\"event_type\":\"").append(TYPES[r.nextInt(TYPES.length)])
                .append("\",\"ts\":\"2026-11-").append(10 + r.nextInt(18)).append('T').append(10 + r.nextInt(12))
                .append(':').append(10 + r.nextInt(50)).append(':').append(10 + r.nextInt(50)).append('.')
                .append(100 + r.nextInt(900)).append("Z\"")
                .append(",\"user_id\":\"u-").append(Long.toHexString(r.nextLong()))
                .append("\",\"session_id\":\"").append(new java.util.UUID(r.nextLong(), r.nextLong()))
                .append("\",\"device\":\"").append(r.nextBoolean() ? "mobile" : "desktop")
                .append("\",\"os\":\"").append(r.nextBoolean() ? "Android 15" : "iOS 19.1")
                .append("\",\"app_version\":\"5.").append(r.nextInt(40)).append('.').append(r.nextInt(10))
                .append("\",\"country\":\"").append(COUNTRIES[r.nextInt(COUNTRIES.length)])
                .append("\",\"city\":\"city-").append(r.nextInt(500))
                .append("\",\"lat\":").append(40 + r.nextInt(1500000) / 100000.0)
                .append(",\"lon\":").append(-5 + r.nextInt(2000000) / 100000.0)
                .append(",\"amount\":").append(r.nextInt(100000) / 100.0)
                .append(",\"currency\":\"EUR\",\"items_count\":3,\"is_new\":").append(r.nextInt(10) == 0)
                .append(",\"referrer\":\"https://www.example-search.com/results?q=").append(Long.toHexString(r.nextLong()))
                .append("&source=newsletter&medium=email&content=").append(Long.toHexString(r.nextLong()))
                .append("\",\"campaign\":\"winter-sale-2026-").append(r.nextInt(20))
                .append("\",\"page\":\"/catalog/category-").append(r.nextInt(100)).append("/product-")
                .append(r.nextInt(100000)).append("?variant=").append(r.nextInt(10))
                .append("\",\"duration_ms\":").append(r.nextInt(60000))
                .append(",\"customer\":{\"id\":").append(r.nextInt(10_000_000))
                .append(",\"name\":\"Customer Name ").append(r.nextInt(1_000_000))
                .append("\",\"email\":\"customer").append(r.nextInt(1_000_000)).append("@mail.example.org")
                .append("\",\"tier\":\"").append(r.nextBoolean() ? "gold" : "silver")
                .append("\",\"since\":\"20").append(10 + r.nextInt(16)).append("-0").append(1 + r.nextInt(9))
                .append("-1").append(r.nextInt(10)).append("\",\"score\":").append(r.nextInt(1000) / 10.0)
                .append("},\"items\":[");
        for (int k = 0; k < 3; k++) {
            s.append(k == 0 ? "" : ",").append("{\"sku\":\"SKU-").append(100000 + r.nextInt(900000))
                    .append("-").append(Long.toHexString(r.nextLong())).append("\",\"qty\":").append(1 + r.nextInt(5))
                    .append(",\"price\":").append(r.nextInt(50000) / 100.0).append('}');
        }
        s.append("],\"tags\":[\"promo\",\"returning-visitor\",\"segment-").append(r.nextInt(50))
                .append("\",\"ab-test-variant-").append(r.nextBoolean() ? 'a' : 'b').append("\"]}");
        return s.toString().getBytes(StandardCharsets.UTF_8);
    }
}
