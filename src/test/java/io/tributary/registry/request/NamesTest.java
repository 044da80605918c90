package io.tributary.registry.request;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import java.util.Random;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class NamesTest {
    /** SPEC 1's rule as the pattern it was written as; the hand-written check must agree with it everywhere. */
    private static final Pattern RULE = Pattern.compile("[A-Za-z0-9_][A-Za-z0-9_-]{0,254}");

    @Test
    void aPartIsCheckedExactlyAsTheRuleSays() {
        String alphabet = "aZ09_-.é \u0000\u00a0ß";
        Random random = new Random(7);
        for (int i = 0; i < 200_000; i++) {
            int length = random.nextInt(8);
            StringBuilder b = new StringBuilder();
            for (int j = 0; j < length; j++) {
                b.append(alphabet.charAt(random.nextInt(alphabet.length())));
            }
            String part = b.toString();
            assertEquals(RULE.matcher(part).matches(), Names.isPart(part), () -> "'" + part + "'");
        }
        for (int length : new int[] {254, 255, 256}) {
            String part = "a".repeat(length);
            assertEquals(RULE.matcher(part).matches(), Names.isPart(part), "length " + length);
        }
    }

    @Test
    void aThreePartNameIsLowerCasedAndABadPartNamed() {
        assertEquals(List.of("main", "fraud", "tx-1"), Names.threePart("name", "Main.FRAUD.tx-1"));
        ApiException e = assertThrows(ApiException.class, () -> Names.threePart("name", "main.-fraud.tx"));
        assertEquals(true, e.getMessage().contains("'main.-fraud.tx' is not a valid name"), e.getMessage());
    }
}
