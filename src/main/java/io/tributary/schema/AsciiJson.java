package io.tributary.schema;

import java.nio.charset.StandardCharsets;

/**
 * The cursor of {@link JsonDecoder}'s fast path: a JSON document read straight from its bytes, for the common case
 * only (printable ASCII, strings without escapes, plain numbers, shallow nesting). It never decides that a document is
 * wrong: anything outside that case, or anything it would have to reject, {@link #BAIL}s, and the document is read
 * again by Jackson, which then gives the value or the failure. So it must accept only what Jackson accepts, with the
 * same value (JsonFastPathTest compares both on random and corrupted documents). It exists because the profile of a
 * JSON catch-up showed Jackson's per-document set-up, its field-name symbol table and the HashMap lookup per field
 * costing about a third of the writer's time.
 */
final class AsciiJson {
    /** Thrown to leave the fast path; shared and without a stack trace, since it is control flow. */
    static final class Bail extends Exception {
        private Bail() {
            super(null, null, false, false);
        }
    }

    static final Bail BAIL = new Bail();

    /** Deeper documents go to Jackson, whose own nesting limit then applies. */
    private static final int MAX_DEPTH = 64;
    /** Longer names and numbers go to Jackson (its limits are 50,000 and 1,000 characters). */
    private static final int MAX_TOKEN = 256;
    private static final double[] POWERS_OF_TEN = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12,
        1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

    final byte[] bytes;
    int pos;
    private int depth;
    /** The last number read: integral (no fraction, no exponent) with its value, or else its double value. */
    boolean integral;
    long longValue;
    double doubleValue;
    /** Where the last name or string read starts and ends (without quotes). */
    int start;
    int end;

    AsciiJson(byte[] bytes) {
        this.bytes = bytes;
    }

    /** The next byte after JSON whitespace (without consuming it), or -1 at the end. */
    int peek() {
        byte[] b = bytes;
        int p = pos;
        while (p < b.length) {
            byte c = b[p];
            if (c != ' ' && c != '\n' && c != '\r' && c != '\t') {
                pos = p;
                return c;
            }
            p++;
        }
        pos = p;
        return -1;
    }

    boolean atEnd() {
        return peek() == -1;
    }

    void enter() throws Bail {
        if (++depth > MAX_DEPTH) {
            throw BAIL;
        }
        pos++;
    }

    void leave() {
        depth--;
        pos++;
    }

    /** Consumes {@code c} after whitespace, or bails. */
    void expect(char c) throws Bail {
        if (peek() != c) {
            throw BAIL;
        }
        pos++;
    }

    /**
     * Reads a string whose opening quote is at {@link #pos}: sets {@link #start}/{@link #end}. Only printable ASCII
     * without backslashes; anything else (escapes, UTF-8, control characters, no closing quote) bails.
     */
    void string() throws Bail {
        byte[] b = bytes;
        int p = pos + 1;
        int s = p;
        while (true) {
            if (p >= b.length) {
                throw BAIL;
            }
            byte c = b[p];
            if (c == '"') {
                break;
            }
            if (c < 0x20 || c > 0x7E || c == '\\') {
                throw BAIL;
            }
            p++;
        }
        start = s;
        end = p;
        pos = p + 1;
    }

    String text() {
        // Printable ASCII: Latin-1 decoding is the UTF-8 decoding, and the cheapest.
        return new String(bytes, start, end - start, StandardCharsets.ISO_8859_1);
    }

    /** Reads a literal (true, false, null) at {@link #pos}, which must be followed by a delimiter. */
    void literal(byte[] word) throws Bail {
        byte[] b = bytes;
        int p = pos;
        if (p + word.length > b.length) {
            throw BAIL;
        }
        for (byte w : word) {
            if (b[p++] != w) {
                throw BAIL;
            }
        }
        pos = p;
        delimited();
    }

    static final byte[] TRUE = {'t', 'r', 'u', 'e'};
    static final byte[] FALSE = {'f', 'a', 'l', 's', 'e'};
    static final byte[] NULL = {'n', 'u', 'l', 'l'};

    /** A scalar ends at whitespace, a comma, a closing bracket or the end; anything else is for Jackson to judge. */
    private void delimited() throws Bail {
        if (pos < bytes.length) {
            byte c = bytes[pos];
            if (c != ',' && c != '}' && c != ']' && c != ' ' && c != '\n' && c != '\r' && c != '\t') {
                throw BAIL;
            }
        }
    }

    /**
     * Reads a number at {@link #pos} in JSON's grammar (no leading zeros, no lone dot or sign, which Jackson rejects
     * too): sets {@link #integral} and {@link #longValue} or {@link #doubleValue}. Integers of more than 18 digits, and
     * decimals of more than 18 significant digits or 4 exponent digits, bail.
     */
    void number() throws Bail {
        byte[] b = bytes;
        int p = pos;
        int first = p;
        boolean negative = false;
        if (p < b.length && b[p] == '-') {
            negative = true;
            p++;
        }
        int digitsStart = p;
        long mantissa = 0;
        int significant = 0;
        if (p < b.length && b[p] == '0') {
            p++;
            if (p < b.length && b[p] >= '0' && b[p] <= '9') {
                throw BAIL;
            }
        } else {
            while (p < b.length && b[p] >= '0' && b[p] <= '9') {
                mantissa = mantissa * 10 + (b[p] - '0');
                significant++;
                p++;
                if (significant > 18) {
                    throw BAIL;
                }
            }
        }
        if (p == digitsStart) {
            throw BAIL;
        }
        int exponent = 0;
        boolean isInt = true;
        if (p < b.length && b[p] == '.') {
            isInt = false;
            p++;
            int fractionStart = p;
            while (p < b.length && b[p] >= '0' && b[p] <= '9') {
                if (mantissa == 0 && b[p] == '0') {
                    exponent--; // a leading zero of the fraction adds no significant digit
                } else {
                    if (++significant > 18) {
                        throw BAIL;
                    }
                    mantissa = mantissa * 10 + (b[p] - '0');
                    exponent--;
                }
                p++;
            }
            if (p == fractionStart) {
                throw BAIL;
            }
        }
        if (p < b.length && (b[p] == 'e' || b[p] == 'E')) {
            isInt = false;
            p++;
            boolean negativeExponent = false;
            if (p < b.length && (b[p] == '+' || b[p] == '-')) {
                negativeExponent = b[p] == '-';
                p++;
            }
            int expStart = p;
            int e = 0;
            while (p < b.length && b[p] >= '0' && b[p] <= '9') {
                e = e * 10 + (b[p] - '0');
                p++;
                if (p - expStart > 4) {
                    throw BAIL;
                }
            }
            if (p == expStart) {
                throw BAIL;
            }
            exponent += negativeExponent ? -e : e;
        }
        if (p - first > MAX_TOKEN) {
            throw BAIL;
        }
        pos = p;
        delimited();
        integral = isInt;
        if (isInt) {
            longValue = negative ? -mantissa : mantissa;
            return;
        }
        // Clinger's fast case: both operands are exact doubles, so one IEEE operation rounds correctly, as
        // Double.parseDouble (Jackson's) does; otherwise Double.parseDouble itself on the same text.
        if (mantissa >= (1L << 53) || exponent < -22 || exponent > 22) {
            doubleValue = Double.parseDouble(new String(b, first, p - first, StandardCharsets.ISO_8859_1));
            return;
        }
        double d = exponent >= 0 ? (double) mantissa * POWERS_OF_TEN[exponent]
                : (double) mantissa / POWERS_OF_TEN[-exponent];
        doubleValue = negative ? -d : d;
    }

    /** Skips any value (checking it as strictly as reading it would). */
    void skipValue() throws Bail {
        int c = peek();
        switch (c) {
            case '"' -> string();
            case '{' -> {
                enter();
                if (peek() == '}') {
                    leave();
                    return;
                }
                while (true) {
                    if (peek() != '"') {
                        throw BAIL;
                    }
                    string();
                    nameLength();
                    expect(':');
                    skipValue();
                    int next = peek();
                    if (next == ',') {
                        pos++;
                    } else if (next == '}') {
                        leave();
                        return;
                    } else {
                        throw BAIL;
                    }
                }
            }
            case '[' -> {
                enter();
                if (peek() == ']') {
                    leave();
                    return;
                }
                while (true) {
                    skipValue();
                    int next = peek();
                    if (next == ',') {
                        pos++;
                    } else if (next == ']') {
                        leave();
                        return;
                    } else {
                        throw BAIL;
                    }
                }
            }
            case 't' -> literal(TRUE);
            case 'f' -> literal(FALSE);
            case 'n' -> literal(NULL);
            default -> {
                if (c == '-' || (c >= '0' && c <= '9')) {
                    number();
                } else {
                    throw BAIL;
                }
            }
        }
    }

    /** The name just read is not too long for the fast path. */
    void nameLength() throws Bail {
        if (end - start > MAX_TOKEN) {
            throw BAIL;
        }
    }
}
