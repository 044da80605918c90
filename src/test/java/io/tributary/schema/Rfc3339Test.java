package io.tributary.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.DateTimeException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.List;
import org.junit.jupiter.api.Test;

class Rfc3339Test {
    private static long micros(Instant i) {
        return i.getEpochSecond() * 1_000_000L + i.getNano() / 1_000;
    }

    @Test
    void agreesWithJavaTime() {
        for (String s : List.of("2024-05-06T07:08:09Z", "2024-05-06T07:08:09.1Z", "2024-05-06T07:08:09.123456Z",
                "2024-05-06T07:08:09.123456789Z", "2024-02-29T23:59:59.999+14:00", "1969-12-31T23:59:59.5-05:30",
                "1900-01-01T00:00:00+00:00", "0001-01-01T00:00:00Z", "9999-12-31T23:59:59.999999Z",
                "+10000-01-01T00:00:00Z")) {
            assertThat(Rfc3339.toMicros(s)).as(s).isEqualTo(micros(OffsetDateTime.parse(s).toInstant()));
        }
    }

    @Test
    void acceptsLowerCaseSeparatorsSpaceAndNoOffset() {
        long expected = micros(Instant.parse("2024-05-06T07:08:09Z"));
        assertThat(Rfc3339.toMicros("2024-05-06t07:08:09z")).isEqualTo(expected);
        assertThat(Rfc3339.toMicros("2024-05-06 07:08:09Z")).isEqualTo(expected);
        assertThat(Rfc3339.toMicros("2024-05-06T07:08:09")).isEqualTo(expected);
    }

    @Test
    void rejectsWhatIsNotADateTime() {
        for (String s : List.of("2024-02-30T00:00:00Z", "2024-05-06T24:00:00Z", "2024-05-06T07:08:60Z",
                "2024-05-06T07:08:09.1234567891Z", "2024-05-06T07:08:09+2:00",
                "2024-05-06", "2024-05-06X07:08:09Z", "2024-05-06T07:08:09Zjunk", "")) {
            assertThatThrownBy(() -> Rfc3339.toMicros(s)).as(s).isInstanceOf(DateTimeException.class);
        }
    }
}
