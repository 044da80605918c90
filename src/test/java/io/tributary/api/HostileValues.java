package io.tributary.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Random;

/**
 * Hostile values for {@link HostileRequestsTest}: path-traversal, NUL, SQL, unicode and control-character strings,
 * random, huge and deeply nested JSON, and random bytes. One instance per client thread, so a seed replays a run.
 */
final class HostileValues {
    static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private final Random random;

    HostileValues(Random random) {
        this.random = random;
    }

    JsonNode hostileValue() {
        return switch (random.nextInt(9)) {
            case 0 -> NODES.numberNode(random.nextLong());
            case 1 -> NODES.numberNode(random.nextBoolean() ? Double.MAX_VALUE : -1e308);
            case 2 -> NODES.booleanNode(random.nextBoolean());
            case 3 -> NODES.nullNode();
            case 4 -> randomJson(0);
            case 5 -> NODES.arrayNode().add(hostileString());
            case 6 -> NODES.textNode("x".repeat(1 + random.nextInt(100_000)));
            default -> NODES.textNode(hostileString());
        };
    }

    private static final List<String> HOSTILE = List.of("..", "../../etc/passwd", "a/../../b", "a.b/../c.d",
            "%2e%2e", "%2e%2e%2f%2e%2e", "%2F", "a%00b", "\u0000", "a\u0000b", "'; DROP TABLE streams; --",
            "\" OR 1=1 --", "main.fraud.tx'--", "Robert'); DELETE FROM secrets;--", "ünïcødé.名前.テーブル",
            "\uD83D\uDE00.\uD83D\uDE00.\uD83D\uDE00", "\uFEFF", "\u202Emain.x.y", "a.b.c\n", " a.b.c ", "a..b", ".",
            "/", "\\", "s3://other-bucket/x", "file:/etc", "file:///tmp/../etc", "${jndi:ldap://127.0.0.1/x}",
            "%s%s%s%n", "{}", "[]", "null", "a.b.c.d.e", "-a.b.c", "A.B.C", "x".repeat(300));

    String hostileString() {
        if (random.nextInt(4) == 0) {
            StringBuilder sb = new StringBuilder();
            int n = 1 + random.nextInt(40);
            for (int i = 0; i < n; i++) {
                int cp = random.nextInt(4) == 0 ? random.nextInt(0x20) : random.nextInt(0x2FFFF);
                if (Character.isValidCodePoint(cp) && !(cp >= 0xD800 && cp <= 0xDFFF)) {
                    sb.appendCodePoint(cp);
                }
            }
            return sb.toString();
        }
        return HOSTILE.get(random.nextInt(HOSTILE.size()));
    }

    JsonNode randomJson(int depth) {
        int pick = depth > 4 ? random.nextInt(5) : random.nextInt(7);
        return switch (pick) {
            case 0 -> NODES.textNode(hostileString());
            case 1 -> NODES.numberNode(random.nextInt());
            case 2 -> NODES.booleanNode(random.nextBoolean());
            case 3 -> NODES.nullNode();
            case 4 -> NODES.numberNode(random.nextDouble());
            case 5 -> {
                ArrayNode a = NODES.arrayNode();
                for (int i = random.nextInt(4); i > 0; i--) {
                    a.add(randomJson(depth + 1));
                }
                yield a;
            }
            default -> {
                ObjectNode o = NODES.objectNode();
                List<String> keys = List.of("name", "scope", "key", "string_value", "options", "changes",
                        "schema_config", "storage_location", "connection_type", "principal");
                for (int i = random.nextInt(4); i > 0; i--) {
                    o.set(random.nextBoolean() ? keys.get(random.nextInt(keys.size())) : hostileString(),
                            randomJson(depth + 1));
                }
                yield o;
            }
        };
    }

    byte[] deepJson() {
        int depth = 1_000 + random.nextInt(50_000);
        String open = random.nextBoolean() ? "[" : "{\"a\":";
        StringBuilder sb = new StringBuilder(open.repeat(depth));
        if (random.nextBoolean()) {
            sb.append("1").append((open.equals("[") ? "]" : "}").repeat(depth));
        }
        return sb.toString().getBytes(StandardCharsets.UTF_8);
    }

    byte[] randomBytes() {
        byte[] b = new byte[random.nextInt(2_000)];
        random.nextBytes(b);
        return b;
    }
}
