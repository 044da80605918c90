package io.tributary.features;

import java.util.Locale;

/** The aggregate functions of a feature (SPEC "Feature views"). */
public enum FeatureFunction {
    COUNT, SUM, AVG, MIN, MAX, FIRST, LAST, APPROX_COUNT_DISTINCT, STDDEV;

    public String apiName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** Count alone may leave the column out (then it counts rows). */
    boolean needsColumn() {
        return this != COUNT;
    }

    /** Functions over numbers only. */
    boolean numeric() {
        return this == SUM || this == AVG || this == MIN || this == MAX || this == STDDEV;
    }

    static FeatureFunction parse(String field, String text) {
        if (text != null) {
            for (FeatureFunction f : values()) {
                if (f.apiName().equals(text)) {
                    return f;
                }
            }
        }
        throw new FeatureDefinitionException(field, "must be one of count, sum, avg, min, max, first, last, "
                + "approx_count_distinct, stddev" + (text == null ? "" : ", got '" + Durations.shorten(text) + "'"));
    }
}
